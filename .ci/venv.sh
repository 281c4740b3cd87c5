# A virtual environment of CI's own for each Python tool set, so that what
# else is installed on the machine (a user site whose scripts are not on
# PATH, other versions of the same packages) cannot change the result.
# Kept between runs in the cache, remade when its requirements change.
# Usage: source .ci/venv.sh; ci_venv NAME REQUIREMENT...
ci_venv() {
  local name=$1
  shift
  local dir="${FAIRDEAL_CI_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/fairdeal-ci}/venv-$name"
  local want
  want=$(printf '%s\n' "$@" | sort | tr '\n' ' ')
  if [ ! -x "$dir/bin/python" ] || [ "$(cat "$dir/.requirements" 2>/dev/null)" != "$want" ]; then
    echo "making the Python environment $name ($want)"
    rm -rf "$dir"
    mkdir -p "$(dirname "$dir")"
    if ! python3 -m venv "$dir" 2>/dev/null; then
      apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq python3-venv >/dev/null
      python3 -m venv "$dir"
    fi
    PYTHONNOUSERSITE=1 "$dir/bin/python" -m pip install --quiet --disable-pip-version-check "$@"
    echo "$want" >"$dir/.requirements"
  fi
  export VIRTUAL_ENV="$dir" PYTHONNOUSERSITE=1 PATH="$dir/bin:$PATH"
}
