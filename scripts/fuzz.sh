#!/usr/bin/env bash
# `make fuzz`: runs libFuzzer (with AddressSanitizer) over every fuzz target for FUZZ_SECONDS each and prints
# one summary line per target: runs, coverage, findings. Findings are written to .build-fuzz/findings/<target>/;
# fix each, then keep the input in Tests/ChirperFuzzTargetsTests/Regressions/<target>/, which `make test` replays.
# Usage: scripts/fuzz.sh BINARY SECONDS [TARGET...]
set -uo pipefail
binary=$1
seconds=$2
shift 2
root=.build-fuzz
python3 scripts/fuzz-seeds.py "$root/seeds" >/dev/null
targets=("$@")
if [[ ${#targets[@]} -eq 0 ]]; then
    # The binary names its targets when none is set.
    read -r -a targets <<<"$(CHIRPER_FUZZ_TARGET= "$binary" -runs=0 2>/dev/null | sed -n 's/.*one of: //p')"
fi
summary=()
for target in "${targets[@]}"; do
    corpus="$root/corpus/$target"
    findings="$root/findings/$target"
    mkdir -p "$corpus" "$findings"
    log="$root/$target.log"
    # The kept regressions and the seeds start the corpus (libFuzzer adds what reaches new code).
    # (libFuzzer stops at a folder that is not there, so only those that are are named.)
    seeds=()
    [[ -d $root/seeds/$target ]] && seeds+=("$root/seeds/$target")
    [[ -d Tests/ChirperFuzzTargetsTests/Regressions/$target ]] && seeds+=("Tests/ChirperFuzzTargetsTests/Regressions/$target")
    CHIRPER_FUZZ_TARGET=$target "$binary" "$corpus" "${seeds[@]}" -max_total_time="$seconds" -max_len=65536 \
        -timeout=20 -rss_limit_mb=4096 -print_final_stats=1 -artifact_prefix="$findings/" >"$log" 2>&1
    runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
    coverage=$(grep -o 'cov: [0-9]*' "$log" | tail -1 | sed 's/cov: //')
    features=$(grep -o 'ft: [0-9]*' "$log" | tail -1 | sed 's/ft: //')
    found=$(find "$findings" -type f | wc -l)
    line=$(printf '%-12s runs=%-9s coverage=%-6s features=%-6s findings=%s' "$target" "${runs:-?}" \
        "${coverage:-?}" "${features:-?}" "$found")
    [[ $found -gt 0 ]] && line+="  (see $findings)"
    echo "$line"
    summary+=("$line")
done
echo
echo "fuzzing summary ($seconds s per target):"
printf '%s\n' "${summary[@]}"
