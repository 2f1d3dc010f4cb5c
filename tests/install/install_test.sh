#!/usr/bin/env bash
# One step of the install tests (tests/install/CMakeLists.txt passes the paths in KP_* variables):
#   tree        cmake --install the build into a fresh $KP_PREFIX
#   consumer    configure, build and run consumer/ against $KP_PREFIX; check its numbers
#   man         the installed page exists and `man kneepoint` renders it with every verb
#   completion  the installed completion offers every verb and simulate's options
set -euo pipefail
step=$1
verbs="simulate predict study scalesim train fit validate calibrate curve report"
fail() { echo "install_test $step: $*" >&2; exit 1; }

case $step in
  tree)
    rm -rf "$KP_PREFIX"
    cmake --install "$KP_BUILD_DIR" --prefix "$KP_PREFIX" > "$KP_PREFIX.log" 2>&1 ||
      { cat "$KP_PREFIX.log"; fail "cmake --install failed"; }
    for f in bin/kneepoint include/core/hw_spec.h include/sim/fold_timing.h \
             lib/cmake/kneepoint/kneepointConfig.cmake share/bash-completion/completions/kneepoint; do
      [ -e "$KP_PREFIX/$f" ] || fail "missing $KP_PREFIX/$f"
    done
    # The CLI's private headers stay out.
    [ ! -e "$KP_PREFIX/include/tools/cli_common.h" ] || fail "tools/cli_common.h was installed"
    ;;
  consumer)
    rm -rf "$KP_CONSUMER_BUILD"
    launcher=()
    [ -n "${KP_CXX_LAUNCHER:-}" ] && launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER="$KP_CXX_LAUNCHER")
    cmake -S "$KP_CONSUMER_SRC" -B "$KP_CONSUMER_BUILD" -DCMAKE_PREFIX_PATH="$KP_PREFIX" \
          -DCMAKE_CXX_COMPILER="$KP_CXX" "${launcher[@]}" > "$KP_CONSUMER_BUILD.log" 2>&1 ||
      { cat "$KP_CONSUMER_BUILD.log"; fail "configuring the consumer failed"; }
    cmake --build "$KP_CONSUMER_BUILD" >> "$KP_CONSUMER_BUILD.log" 2>&1 ||
      { cat "$KP_CONSUMER_BUILD.log"; fail "building the consumer failed"; }
    out=$("$KP_CONSUMER_BUILD/consumer")
    echo "$out"
    # 4 x 8 array, 2 arrays, 500 MHz: 4 * 8 * 2 * 5e8 = 3.2e10 MAC/s. GEMM 8 x 16 x 10, os: folds
    # ceil(8/4) * ceil(16/8) = 4 of T + R + C - 2 = 10 + 4 + 8 - 2 = 20 cycles; 4 * 20 - 1 = 79.
    grep -qx "peak_macs_per_s 3.2e+10" <<< "$out" || fail "expected peak_macs_per_s 3.2e+10"
    grep -qx "fold_total_cycles 79" <<< "$out" || fail "expected fold_total_cycles 79"
    grep -q "^bad_clock .*consumer.yaml:6:.*chip.clock" <<< "$out" || fail "expected the error at consumer.yaml:6"
    ;;
  man)
    [ "${KP_HAVE_MAN:-0}" = 1 ] || { echo "help2man was not found at configure time: no man page"; exit 77; }
    page=$KP_PREFIX/share/man/man1/kneepoint.1
    [ -s "$page" ] || fail "missing $page"
    if command -v man > /dev/null; then
      # As a user would: `man kneepoint` with the prefix's man folder on the search path.
      text=$(MANWIDTH=100 man -M "$KP_PREFIX/share/man" kneepoint 2> /dev/null)
    else
      text=$(groff -man -Tutf8 "$page" 2> /dev/null)
    fi
    for w in NAME SYNOPSIS "VERB OPTIONS" $verbs; do
      grep -q "^ *$w\b" <<< "$text" || fail "the rendered page lacks \"$w\""
    done
    grep -q -- "--workload" <<< "$text" || fail "the rendered page lacks simulate's --workload"
    ;;
  completion)
    prog=$KP_PREFIX/bin/kneepoint
    script=$KP_PREFIX/share/bash-completion/completions/kneepoint
    complete_at() {  # complete_at WORD...: COMPREPLY for the last word, one a line
      bash -c 'source "$1"; shift; COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1)); _kneepoint;
               printf "%s\n" "${COMPREPLY[@]}"' _ "$script" "$prog" "$@" | sort
    }
    got=$(complete_at "")
    for v in $verbs --help --version; do
      grep -qx -- "$v" <<< "$got" || fail "verbs: no \"$v\" in: $(echo $got)"
    done
    # simulate's options: the ones written in cmd_simulate.cpp, and exactly those its --help lists.
    got=$(complete_at simulate --)
    for o in --hw --workload --batch --learners --fidelity --format --set --help; do
      grep -qx -- "$o" <<< "$got" || fail "simulate: no \"$o\" in: $(echo $got)"
    done
    want=$("$prog" simulate --help | grep -oE '^ +(-[a-z] \[ )?--[a-z-]+' | grep -oE -- '--[a-z-]+' | sort)
    [ "$got" = "$want" ] || fail "simulate: completion \"$(echo $got)\" != --help \"$(echo $want)\""
    got=$(complete_at simulate --fidelity "")
    [ "$(echo $got)" = "analytic systemc" ] || fail "--fidelity: expected analytic systemc, got \"$(echo $got)\""
    ;;
  *) fail "unknown step" ;;
esac
echo "install_test $step: ok"
