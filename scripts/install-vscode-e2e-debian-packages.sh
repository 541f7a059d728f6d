#!/usr/bin/env bash
# Debian's packages for the end-to-end test in a real VS Code (test/e2e/), as root: Chromium, which
# playwright-core drives, and what code-server's native modules build with (libkrb5-dev, pkg-config,
# a C++ toolchain, python3). Only the missing ones are installed, so a second run returns at once.
set -euo pipefail

# command on PATH -> the Debian package that provides it
declare -A packages=(
  [chromium]=chromium
  [pkg-config]=pkg-config
  [krb5-config]=libkrb5-dev
  [g++]=g++
  [make]=make
  [python3]=python3
)
missing=()
for command in "${!packages[@]}"; do
  command -v "$command" >/dev/null 2>&1 || missing+=("${packages[$command]}")
done
if [ ${#missing[@]} -eq 0 ]; then
  exit 0
fi
if [ "$(id -u)" -ne 0 ]; then
  echo "install as root: apt-get install ${missing[*]}" >&2
  exit 1
fi
echo "installing Debian packages: ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
