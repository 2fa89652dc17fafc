#!/bin/bash
# vkc tune as a user runs it: it measures on the device, writes a section that the library reads
# back through VKC_TUNING_FILE (vkc tune --show prints the fields in effect), and scans under that
# file stay correct. Usage: tune.sh path/to/vkc
set -u
vkc=$1
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
fail() { echo "FAIL: $*"; exit 1; }

"$vkc" tune --max-log2 12 --runs 1 --out "$dir/tuning.txt" || fail "vkc tune exited $?"
cat "$dir/tuning.txt"
grep -q "^device " "$dir/tuning.txt" || fail "no device line"
grep -q "^driver " "$dir/tuning.txt" || fail "no driver line"
# Every field it wrote is in effect under VKC_TUNING_FILE.
VKC_TUNING_FILE="$dir/tuning.txt" "$vkc" tune --show > "$dir/shown.txt" || fail "vkc tune --show exited $?"
written=0
while read -r key value _; do
  case "$key" in ''|'#'*|device|driver) continue ;; esac
  grep -qx "$key $value" "$dir/shown.txt" || fail "$key $value was written but --show says: $(grep "^$key " "$dir/shown.txt")"
  written=$((written + 1))
done < "$dir/tuning.txt"
[ "$written" -ge 2 ] || fail "only $written fields written"
# A field set by hand is in effect, and scans and reduces under the file are correct.
sed -i 's/^reduce_chunk_cap .*/reduce_chunk_cap 3/' "$dir/tuning.txt"
VKC_TUNING_FILE="$dir/tuning.txt" "$vkc" tune --show | grep -qx "reduce_chunk_cap 3" || fail "the edited field is not in effect"
for args in "--type u32 --op add --count 70000" "--type u64 --op max --count 70001 --reduce" "--type f32 --op add --count 5000 --reduce"; do
  VKC_TUNING_FILE="$dir/tuning.txt" "$vkc" check $args || fail "vkc check $args under the tuning file"
done
# A bad file is refused with its name, line and problem.
printf 'device x\nchunk_tile 4\n' > "$dir/bad.txt"
out=$(VKC_TUNING_FILE="$dir/bad.txt" "$vkc" tune --show 2>&1) && fail "a bad file was accepted"
[[ "$out" == *"bad.txt: line 2: unknown field 'chunk_tile'"* ]] || fail "bad file message: $out"
echo "vkc tune: $written fields written and read back"
