#!/usr/bin/env bash
# The sample alerting rules (docs/alerts.yml) as Prometheus reads them:
# `promtool check rules`, then their unit tests (.ci/alerts.test.yml).
# promtool comes from Debian's prometheus package, unpacked, not installed
# (no daemon, no service user). Usage: .ci/alerts.sh
set -euo pipefail
cd "$(dirname "$0")/.."
tools="${FAIRDEAL_CI_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/fairdeal-ci}/promtool"
promtool="$tools/usr/bin/promtool"
if [ ! -x "$promtool" ]; then
  echo "unpacking promtool from Debian's prometheus package"
  mkdir -p "$tools"
  (cd "$tools" && { apt-get download prometheus >/dev/null 2>&1 \
    || { apt-get update -qq && apt-get download prometheus >/dev/null; }; } \
    && dpkg-deb -x prometheus_*.deb . && rm -f prometheus_*.deb)
fi
"$promtool" --version | head -n 1
"$promtool" check rules docs/alerts.yml
(cd .ci && "$promtool" test rules alerts.test.yml)
