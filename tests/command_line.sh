#!/bin/bash
# vkc's command line refuses misuse with exit status 2 and a message that names the problem; none of
# these cases opens a device. Usage: command_line.sh path/to/vkc
vkc=$1
failures=0
expect() { # expect STATUS MESSAGE ARGS...: vkc ARGS exits with STATUS, its output contains MESSAGE
    local want=$1 message=$2
    shift 2
    local out status
    out=$("$vkc" "$@" 2>&1)
    status=$?
    if [ "$status" != "$want" ] || [[ "$out" != *"$message"* ]]; then
        echo "FAIL: vkc $* exited $status (want $want) with: $out (want: $message)"
        failures=$((failures + 1))
    else
        echo "ok: vkc $*"
    fi
}
expect 2 "usage: vkc <command>"
expect 0 "--tiles-per-group" --help
expect 2 "unknown command 'nonsense'" nonsense
expect 2 "option --runs takes a whole number from 1 to 1000000, not 'abc'" bench scan --runs abc
expect 2 "option --runs needs a value" bench scan --runs
expect 2 "option --size takes a whole number from 0 to 4294967295, not '99999999999999'" bench block --size 99999999999999
expect 2 "option --items takes a whole number from 1 to 1024, not 'x'" bench block --items 1,x
expect 2 "option --min-log2 takes a whole number from 10 to 32, not '9'" bench scan --min-log2 9
expect 2 "--min-log2 is past --max-log2" bench scan --min-log2 20 --max-log2 12
expect 2 "the bench is block, scan, sort, select, histogram, segmented or first-call" bench nonsense
expect 2 "option --end-bit takes a whole number from 1 to 32, not '40'" bench sort --end-bit 40
expect 2 "option --key-bits takes a whole number from 1 to 63, not '0'" bench sort --key-bits 0
expect 2 "--min-log2 is past --max-log2" bench sort --min-log2 20 --max-log2 12
expect 2 "--min-log2 is past --max-log2" bench select --min-log2 20 --max-log2 12
expect 2 "unknown option --fast" bench first-call --fast
expect 2 "option --only needs a value" selftest --only
expect 2 "unknown option --everything" selftest --everything
expect 2 "unexpected arguments after modules" modules --json extra
expect 2 "option --count takes a whole number from 0 to 18446744073709551615, not '-5'" check --count -5
expect 2 "unknown type u99" check --type u99
expect 2 "option --max-log2 takes a whole number from 12 to 28, not '30'" tune --max-log2 30
expect 2 "unknown option --fast" tune --fast
expect 2 "unknown op nand" check --op nand
[ "$failures" = 0 ] || { echo "$failures failed"; exit 1; }
