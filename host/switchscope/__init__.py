"""switchscope: measure how long a real-time kernel takes to switch tasks."""

__version__ = "0.1.0"
