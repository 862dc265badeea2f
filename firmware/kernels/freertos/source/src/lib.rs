// Empty: this crate only pins the FreeRTOS source; see Cargo.toml.
