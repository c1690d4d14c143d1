#!/usr/bin/env bash
# Installs the servers the benchmarks measure against, from Debian's packages: nginx (a reference
# server for the throughput section) and wrk (a load generator, to show what the sandbox itself can
# serve). The benchmarks skip those rows with a note when either is missing; this script never
# fails the caller: when it can't install, it says why and exits 0.
#
#     Scripts/bench-servers.sh           # install what is missing
#     Scripts/bench-servers.sh --check   # only say what is there
#
# The benchmark executable starts nginx itself (a generated config in a temporary directory,
# listening on a free 127.0.0.1 port), so nothing is configured or started here; the packaged
# service is stopped and disabled if the package's post-install started it.
set -u

have_nginx() { command -v nginx >/dev/null 2>&1 || [ -x /usr/sbin/nginx ]; }
have_wrk() { command -v wrk >/dev/null 2>&1; }

report() {
    if have_nginx; then echo "nginx: $( (command -v nginx || echo /usr/sbin/nginx) | head -1) ($( (nginx -v 2>&1 || /usr/sbin/nginx -v 2>&1) | head -1))"; else echo "nginx: not installed"; fi
    if have_wrk; then echo "wrk: $(command -v wrk)"; else echo "wrk: not installed"; fi
}

if [ "${1:-}" = "--check" ]; then report; exit 0; fi
if have_nginx && have_wrk; then report; exit 0; fi

if ! command -v apt-get >/dev/null 2>&1; then
    echo "note: apt-get not found (not a Debian-like system); install nginx and wrk by hand to get those rows."
    report
    exit 0
fi

# root runs apt-get itself; anyone else needs sudo that doesn't ask for a password.
SUDO=""
if [ "$(id -u)" -ne 0 ]; then
    if command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null; then
        SUDO="sudo -n"
    else
        echo "note: not root and no password-less sudo: can't install nginx/wrk; the benchmarks will skip their rows."
        report
        exit 0
    fi
fi

export DEBIAN_FRONTEND=noninteractive
if ! $SUDO apt-get update -qq; then
    echo "note: apt-get update failed (no network to the package mirrors?); the benchmarks will skip the nginx/wrk rows."
    report
    exit 0
fi

packages=()
if ! have_wrk; then packages+=(wrk); fi
if ! have_nginx; then
    # nginx-light (bookworm and earlier) is the smallest build; later releases only have nginx.
    if apt-cache show nginx-light >/dev/null 2>&1; then packages+=(nginx-light); else packages+=(nginx); fi
fi

# Don't let the package's post-install start the system service (no init system in containers,
# and port 80 may be taken): policy-rc.d exit 101 forbids starting services during the install.
policy=/usr/sbin/policy-rc.d
made_policy=0
if [ ! -e "$policy" ]; then
    printf '#!/bin/sh\nexit 101\n' | $SUDO tee "$policy" >/dev/null && $SUDO chmod +x "$policy" && made_policy=1
fi
if ! $SUDO apt-get install -y -qq --no-install-recommends "${packages[@]}"; then
    echo "note: apt-get install ${packages[*]} failed; the benchmarks will skip the rows that need it."
fi
if [ "$made_policy" = 1 ]; then $SUDO rm -f "$policy"; fi
report
exit 0
