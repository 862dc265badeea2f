#!/usr/bin/env bash
# Sets up everything switchscope needs on Debian 12 (bookworm) or 13 (trixie):
#   1. Debian packages (on Debian 12, QEMU 10 from bookworm-backports),
#   2. rustup, then the Rust toolchains pinned by the rust-toolchain.toml files,
#   3. the Python package in .venv, with the `switchscope` command on PATH,
#   4. the pinned crates (FreeRTOS and the Rust kernels),
#   5. the native simulator helpers (simavr runner, QEMU plugin),
#   6. a short measurement on each simulator and method, to prove it all works.
# Safe to run again: every step does only what is missing.
set -euo pipefail
cd "$(dirname "$0")"

# rustup-init, for Debian 12 (Debian 13 has a rustup package): a pinned release, checked against these digests
RUSTUP_VERSION=1.28.2
declare -A RUSTUP_INIT_SHA256=(
    [x86_64-unknown-linux-gnu]=20a06e644b0d9bd2fbdbfd52d42540bdde820ea7df86e92e533c073da0cdd43c
    [aarch64-unknown-linux-gnu]=e3853c5a252fca15252d07cb23a1bdd9377a8c6f3efa01531109281ae47f841c
)
QEMU_LEAST_VERSION=1:10.0  # the plugin speaks plugin API version 4
# every folder with a rust-toolchain.toml: the Rust workspaces, and the crates kernels' C sources come from
mapfile -t RUST_TOOLCHAIN_FILES < <(find firmware -name rust-toolchain.toml -not -path "*/target/*" -printf '%h\n' | sort)

current_step="starting"
step() { current_step="$1"; printf '\n==> %s\n' "$1"; }
fail() {  # what went wrong, then what to do
    printf '\nsetup: %s: %s\n' "$current_step" "$1" >&2
    [ $# -lt 2 ] || printf 'fix: %s\n' "$2" >&2
    exit 1
}
trap 'printf "\nsetup: the step \"%s\" failed (the lines above say why). Fix that and run ./setup.sh again: finished steps are skipped.\n" "$current_step" >&2' ERR

step "Checking the system"
[ -r /etc/os-release ] && . /etc/os-release
codename="${VERSION_CODENAME:-unknown}"
case "${ID:-unknown}:$codename" in
    debian:bookworm | debian:trixie) echo "${PRETTY_NAME:-Debian $codename}: supported" ;;
    *)
        if [ -z "${SWITCHSCOPE_ANY_SYSTEM:-}" ]; then
            fail "this is ${PRETTY_NAME:-an unknown system}; set-up supports Debian 12 (bookworm) and Debian 13 (trixie)" \
                 "install what docs/install.md lists by hand, or run SWITCHSCOPE_ANY_SYSTEM=1 ./setup.sh to try anyway"
        fi
        echo "${PRETTY_NAME:-unknown system}: not supported, trying anyway (SWITCHSCOPE_ANY_SYSTEM is set)" ;;
esac
SUDO=""
if [ "$(id -u)" -ne 0 ]; then
    command -v sudo >/dev/null 2>&1 || fail "installing Debian packages needs root, and there is no sudo" \
                                            "run ./setup.sh as root, or install sudo"
    SUDO=sudo
fi
cargo_home="${CARGO_HOME:-$HOME/.cargo}"
export PATH="$cargo_home/bin:$PATH"  # where rustup-init puts rustup, cargo and rustc

step "Debian packages"
APT_PACKAGES=(
    qemu-system-arm gcc-arm-none-eabi libnewlib-arm-none-eabi binutils-arm-none-eabi  # Cortex-M targets
    qemu-system-misc                     # qemu-system-riscv32: ibex-qemu, Ibex's firmware on QEMU's virt
    gcc-avr avr-libc binutils-avr libsimavr-dev libelf-dev                             # ATmega328P and its simulator
    gcc libc6-dev                        # host builds: simavr runner, QEMU plugin, the Rust crates' build scripts
    verilator g++ make gcc-riscv64-unknown-elf  # Ibex's RTL as a model, and RV32 firmware (no C library: ours)
    sigrok-cli                           # reading and writing captures
    avrdude openocd                      # flashing real boards: the Arduino Uno, the STM32 kits
    chromium chromium-driver fonts-dejavu-core  # the HTML report's test in a real browser (headless)
    python3 python3-venv                 # the host tool
    curl ca-certificates                 # downloads (rustup)
)
have_rustup() { command -v rustup >/dev/null 2>&1; }
if ! have_rustup && [ "$codename" != bookworm ]; then
    APT_PACKAGES+=(rustup)  # Debian 13 packages rustup itself
fi
installed() { dpkg-query -W -f='${Status}' "$1" 2>/dev/null | grep -q "install ok installed"; }
QEMU_PACKAGES=(qemu-system-arm qemu-system-misc)  # both from QEMU 10 (on Debian 12 from bookworm-backports)
qemu_version() { dpkg-query -W -f='${Version}' "${1:-qemu-system-arm}" 2>/dev/null || true; }
qemu_package_is_new_enough() { installed "$1" && dpkg --compare-versions "$(qemu_version "$1")" ge "$QEMU_LEAST_VERSION"; }
qemu_is_new_enough() {
    local package
    for package in "${QEMU_PACKAGES[@]}"; do qemu_package_is_new_enough "$package" || return 1; done
}

# The mirror of the system's own bookworm source, for the backports line beside it.
debian_mirror() {
    local uri
    uri=$({ cat /etc/apt/sources.list /etc/apt/sources.list.d/*.list 2>/dev/null || true; } | sed -E 's/\[[^]]*\]//' |
          awk '$1 == "deb" && $3 == "bookworm" { print $2; exit }')
    [ -n "$uri" ] || uri=$({ cat /etc/apt/sources.list.d/*.sources 2>/dev/null || true; } | awk '
        BEGIN { RS = ""; FS = "\n" }
        { uri = ""; ours = 0
          for (i = 1; i <= NF; i++) {
              n = split($i, word, /[ \t]+/)
              if (word[1] == "URIs:") uri = word[2]
              if (word[1] == "Suites:") for (j = 2; j <= n; j++) if (word[j] == "bookworm") ours = 1
          }
          if (ours && uri != "") { print uri; exit } }')
    echo "${uri:-http://deb.debian.org/debian}"
}
BACKPORTS_SOURCE=/etc/apt/sources.list.d/bookworm-backports.sources
needs_backports=""
if [ "$codename" = bookworm ] && ! qemu_is_new_enough; then
    needs_backports=1
    if ! grep -rqs "bookworm-backports" /etc/apt/sources.list /etc/apt/sources.list.d/; then
        mirror=$(debian_mirror)
        echo "adding $BACKPORTS_SOURCE ($mirror, bookworm-backports): QEMU 10 for Debian 12 comes from there"
        printf 'Types: deb\nURIs: %s\nSuites: bookworm-backports\nComponents: main\nSigned-By: /usr/share/keyrings/debian-archive-keyring.gpg\n' \
            "$mirror" | $SUDO tee "$BACKPORTS_SOURCE" >/dev/null
    fi
fi
missing=()
for package in "${APT_PACKAGES[@]}"; do
    case " ${QEMU_PACKAGES[*]} " in *" $package "*) continue ;; esac
    installed "$package" || missing+=("$package")
done
if [ ${#missing[@]} -gt 0 ] || ! qemu_is_new_enough; then
    $SUDO apt-get update -qq || fail "apt-get update failed" "check the apt sources and the network, then run ./setup.sh again"
    apt_log=$(mktemp)
    apt_install() {  # apt's own lines go to a log, shown when it fails
        DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -q --no-install-recommends "$@" >"$apt_log" 2>&1 || {
            tail -n 25 "$apt_log" >&2
            fail "apt-get install $* failed (its last lines are above)" "fix what apt says, then run ./setup.sh again"
        }
        grep -E "^(Need to get|After this operation)" "$apt_log" | sed 's/^/  /' || true
    }
    if [ ${#missing[@]} -gt 0 ]; then
        echo "installing: ${missing[*]}"
        apt_install "${missing[@]}"
    fi
    if ! qemu_is_new_enough; then
        echo "installing: ${QEMU_PACKAGES[*]} ${needs_backports:+from bookworm-backports }(QEMU 10)"
        apt_install ${needs_backports:+-t bookworm-backports} "${QEMU_PACKAGES[@]}"
    fi
    rm -f "$apt_log"
else
    echo "all present"
fi
for package in "${QEMU_PACKAGES[@]}"; do
    qemu_package_is_new_enough "$package" \
        || fail "$package is $(qemu_version "$package"), switchscope needs $QEMU_LEAST_VERSION or newer" \
                "install QEMU 10 (on Debian 12: apt-get install -t bookworm-backports $package)"
    echo "$package $(qemu_version "$package")"
done

step "rustup and the pinned Rust toolchains"
if ! have_rustup; then
    [ "$codename" = bookworm ] || fail "no rustup after installing the Debian package" "apt-get install rustup"
    triple="$(uname -m)-unknown-linux-gnu"
    digest="${RUSTUP_INIT_SHA256[$triple]:-}"
    [ -n "$digest" ] || fail "no pinned rustup-init for $triple" "install rustup yourself (rustup.rs), then run ./setup.sh again"
    scratch=$(mktemp -d)
    echo "downloading rustup-init $RUSTUP_VERSION for $triple"
    curl --proto '=https' --tlsv1.2 -sSfL -o "$scratch/rustup-init" \
        "https://static.rust-lang.org/rustup/archive/$RUSTUP_VERSION/$triple/rustup-init" ||
        fail "downloading rustup-init failed" "check the network, then run ./setup.sh again"
    echo "$digest  $scratch/rustup-init" | sha256sum --check --quiet ||
        fail "rustup-init does not match its pinned SHA-256: not run" "run ./setup.sh again; if it persists, report it"
    chmod +x "$scratch/rustup-init"
    # no default toolchain: every Rust directory of this project names its own
    "$scratch/rustup-init" -y --no-modify-path --profile minimal --default-toolchain none
    rm -rf "$scratch"
    echo "rustup is in $cargo_home/bin (add it to PATH for your shells; switchscope finds it there)"
fi
rustup --version 2>/dev/null | head -n 1
for directory in "${RUST_TOOLCHAIN_FILES[@]}"; do
    # channel, targets and components of the directory's rust-toolchain.toml, one line each
    mapfile -t pinned < <(python3 -c '
import sys, tomllib
toolchain = tomllib.load(open(sys.argv[1], "rb"))["toolchain"]
print(toolchain["channel"]); print(" ".join(toolchain.get("targets", []))); print(" ".join(toolchain.get("components", [])))
' "$directory/rust-toolchain.toml")
    channel="${pinned[0]:-}" targets="${pinned[1]:-}" components="${pinned[2]:-}"
    [ -n "$channel" ] || fail "$directory/rust-toolchain.toml names no toolchain channel" "restore it from git"
    echo "$directory: Rust $channel${targets:+, target $targets}${components:+, component $components}"
    rustup toolchain list | grep -q "^$channel-" || rustup toolchain install "$channel" --profile minimal
    # shellcheck disable=SC2086 # one word per target or component
    [ -z "$targets" ] || rustup target add --toolchain "$channel" $targets
    # shellcheck disable=SC2086
    [ -z "$components" ] || rustup component add --toolchain "$channel" $components
done

step "The switchscope Python package in .venv"
[ -x .venv/bin/python ] || python3 -m venv .venv
.venv/bin/python -m pip install --quiet --disable-pip-version-check -e '.[test,cluster]'
# Put the command on PATH: /usr/local/bin for root, ~/.local/bin otherwise.
if [ "$(id -u)" -eq 0 ]; then bin_dir=/usr/local/bin; else bin_dir="$HOME/.local/bin"; fi
mkdir -p "$bin_dir"
previous=$(readlink "$bin_dir/switchscope" 2>/dev/null || true)
ln -sf "$PWD/.venv/bin/switchscope" "$bin_dir/switchscope"
echo "$bin_dir/switchscope -> $PWD/.venv/bin/switchscope"
if [ -n "$previous" ] && [ "$previous" != "$PWD/.venv/bin/switchscope" ]; then
    echo "  (it was $previous: another checkout's; run that checkout's ./setup.sh to point it back)"
fi

step "The pinned crates (FreeRTOS, the Rust kernels)"
for directory in "${RUST_TOOLCHAIN_FILES[@]}"; do
    (cd "$directory" && cargo fetch --locked --quiet) ||
        fail "cargo could not fetch the crates of $directory" "check that crates.io is reachable, then run ./setup.sh again"
done
echo "fetched"

step "The simulator helpers (simavr runner, QEMU plugin, Ibex's and VexRiscv's RTL as Verilator models)"
.venv/bin/python -c 'from switchscope.build import native; print(native.ensure("simavr")); print(native.ensure("qemu"))'
.venv/bin/python -c 'from switchscope.build import native; print(native.ensure("verilator", "small")); print(native.ensure("verilator", "maxperf")); print(native.ensure("verilator", "VexRiscv_Full"))' ||
    fail "building the Verilator models failed (the message is above)" "fix what it names, then run ./setup.sh again"

step "Proving it: a short measurement on each simulator and method"
prove() {
    .venv/bin/switchscope run --scenario yield --samples 300 --quiet "$@" ||
        fail "the measurement 'switchscope run --scenario yield --samples 300 $*' failed (its message is above)" \
             "fix what it names (a simulator that refuses to start says so in its own words above), then run ./setup.sh again"
}
prove --target mps2-an385 --method all   # QEMU: probe, scope (plugin) and marker (plugin)
prove --target atmega328p --method probe  # simavr runner
prove --target ibex --method probe        # Ibex's RTL on Verilator
prove --target vexriscv --method probe    # VexRiscv's RTL on Verilator, its caches

echo
echo "switchscope is ready: $bin_dir/switchscope"
case ":$PATH:" in
    *":$bin_dir:"*) ;;
    *) echo "note: $bin_dir is not on your PATH; add it, or run $PWD/.venv/bin/switchscope" ;;
esac
