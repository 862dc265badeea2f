#!/usr/bin/env bash
# Sets up everything switchscope needs on a Debian (bookworm) machine:
# Debian packages, the Python package in .venv with the `switchscope` command
# on PATH, the pinned kernel crates, and the native simulator helpers.
# Safe to run again.
set -euo pipefail
cd "$(dirname "$0")"

APT_PACKAGES=(
    qemu-system-arm gcc-arm-none-eabi libnewlib-arm-none-eabi binutils-arm-none-eabi  # Cortex-M3 target
    gcc-avr avr-libc libsimavr-dev libelf-dev gcc                                      # ATmega328P target
    sigrok-cli                                                                          # reading and writing captures
    python3-venv
)
command -v cargo >/dev/null 2>&1 || APT_PACKAGES+=(cargo)

step() { printf '\n==> %s\n' "$*"; }

missing=()
for package in "${APT_PACKAGES[@]}"; do
    dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed" || missing+=("$package")
done
if [ ${#missing[@]} -gt 0 ]; then
    step "Installing Debian packages: ${missing[*]}"
    SUDO=""
    if [ "$(id -u)" -ne 0 ]; then
        command -v sudo >/dev/null 2>&1 || { echo "setup: need root or sudo to install ${missing[*]}" >&2; exit 1; }
        SUDO=sudo
    fi
    $SUDO apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi

step "Installing the switchscope Python package into .venv"
if [ ! -x .venv/bin/python ]; then
    python3 -m venv .venv
fi
.venv/bin/python -m pip install --quiet --disable-pip-version-check -e '.[test]'

# Put the command on PATH: /usr/local/bin for root, ~/.local/bin otherwise.
if [ "$(id -u)" -eq 0 ]; then bin_dir=/usr/local/bin; else bin_dir="$HOME/.local/bin"; fi
mkdir -p "$bin_dir"
ln -sf "$PWD/.venv/bin/switchscope" "$bin_dir/switchscope"

step "Fetching the pinned kernel crates, and the Rust target of the Rust kernels"
cargo fetch --locked --manifest-path firmware/kernels/freertos/source/Cargo.toml
if command -v rustup >/dev/null 2>&1; then
    rustup target add thumbv7m-none-eabi
    # the AVR builds core from source: nightly with its sources
    rustup toolchain install nightly --profile minimal --component rust-src
else
    echo "note: no rustup: the Rust kernels need the thumbv7m-none-eabi target and, for the AVR," \
         "a nightly toolchain with rust-src (rustup.rs)" >&2
fi
(cd firmware/rust && cargo fetch --locked)
(cd firmware/rust-avr && cargo +nightly fetch --locked)

step "Building the simulator helpers (simavr runner, QEMU plugin)"
.venv/bin/python -c "from switchscope import native; native.simavr_runner(); native.qemu_plugin()"

step "Checking the installation"
.venv/bin/switchscope list >/dev/null
echo "switchscope is ready: $bin_dir/switchscope"
case ":$PATH:" in
    *":$bin_dir:"*) ;;
    *) echo "note: $bin_dir is not on your PATH; add it, or run $PWD/.venv/bin/switchscope" ;;
esac
