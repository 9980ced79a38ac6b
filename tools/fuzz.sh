#!/usr/bin/env bash
# Fuzz qrt with libFuzzer (ASan + UBSan): builds build-fuzz (the "fuzz" preset in
# CMakePresets.json: clang, QRT_FUZZ=ON) if needed, seeds each target's corpus from
# small model and tensor files, then runs the targets one after another (one process:
# the machine's other core stays free).
#   bash tools/fuzz.sh [SECONDS_PER_TARGET] [TARGET]     # defaults: 60, every target
# Targets: onnx_loader json_loader npy tensor_proto run_model.
# Corpora grow in build-fuzz/corpus/<target>; crashes land in build-fuzz/artifacts/<target>.
# Reproduce one: build-fuzz/tools/fuzz/<target>_fuzz FILE
set -uo pipefail
cd "$(dirname "$0")/.."
SECS=${1:-60}
ONLY=${2:-}
BUILD=build-fuzz
ALL=(onnx_loader json_loader npy tensor_proto run_model)
NODE_TESTS=/usr/share/libonnx-testdata/data/node
SHARED=../shared/models

if [[ ! -f "$BUILD/build.ninja" ]]; then
  cmake --preset fuzz >/dev/null || exit 1
fi
cmake --build "$BUILD" -j"${JOBS:-2}" --target qrt_fuzz_targets || exit 1
BIN="$BUILD/tools/fuzz"

# Longest input per target; seeds longer than that are left out (libFuzzer would cut them).
max_len() {
  case $1 in
    npy|tensor_proto) echo 16384 ;;
    *) echo 65536 ;;
  esac
}

# Small files from the model and test folders that exist here, by extension.
find_seeds() {  # EXT MAXBYTES
  local dirs=(models tests/data tools/fuzz/seeds)
  [[ -d $SHARED ]] && dirs+=("$SHARED")
  [[ -d $NODE_TESTS ]] && dirs+=("$NODE_TESTS")
  find "${dirs[@]}" -type f -name "*.$1" -size -"$2"c 2>/dev/null
}

# Copies files into a corpus under their content hash, so seeding twice adds nothing.
add_to_corpus() {  # DIR FILE...
  local dir=$1 f
  shift
  for f in "$@"; do cp -n "$f" "$dir/$(sha1sum "$f" | cut -c1-40)"; done
}

# Dictionaries: the JSON format's keys and values, op and attribute names from the
# sources (so new ops are picked up), external-data keys for the ONNX targets.
make_dicts() {
  mkdir -p "$BUILD/dict"
  local ops attrs words w
  ops=$(grep -rhoE 'const OpDef k[A-Za-z0-9]+\{"[^"]*", "[^"]*"' ops | sed -E 's/.*"([^"]*)"$/\1/' | sort -u)
  attrs=$(grep -rhoE '(GetInts?|GetFloats?|GetString|GetTensor|GetGraph|Has)\("[a-z_]+"' ops passes | sed -E 's/.*\("//;s/"//' | sort -u)
  words="format qrt.graph version opsets ai.onnx com.microsoft qrt inputs outputs initializers nodes name op
    domain attrs dtype shape data data_base64 file tensor graph nan inf -inf float32 float16 bfloat16 float64
    int8 uint8 int16 uint16 int32 int64 bool data.bin empty.bin location offset length"
  : >"$BUILD/dict/json.dict"
  : >"$BUILD/dict/onnx.dict"
  for w in $words $ops $attrs; do
    echo "\"\\\"$w\\\"\"" >>"$BUILD/dict/json.dict"
    echo "\"$w\"" >>"$BUILD/dict/onnx.dict"
  done
}

seed() {  # TARGET
  local t=$1 dir="$BUILD/corpus/$1" len
  len=$(max_len "$t")
  mkdir -p "$dir"
  case $t in
    onnx_loader) add_to_corpus "$dir" $(find_seeds onnx "$len") ;;
    npy) add_to_corpus "$dir" $(find_seeds npy "$len") ;;
    tensor_proto) add_to_corpus "$dir" $(find_seeds pb "$len") ;;
    json_loader|run_model)
      if [[ ! -d "$BUILD/json_seeds" ]]; then
        mkdir -p "$BUILD/json_seeds"
        "$BIN/make_json_seeds" "$BUILD/json_seeds" $(find_seeds onnx "$len") >/dev/null
      fi
      add_to_corpus "$dir" $(find_seeds json "$len") $(find "$BUILD/json_seeds" -type f -size -"$len"c)
      [[ $t == run_model ]] && add_to_corpus "$dir" $(find_seeds onnx "$len")
      ;;
  esac
}

make_dicts
targets=("${ALL[@]}")
[[ -n $ONLY ]] && targets=("$ONLY")
summary=""
for t in "${targets[@]}"; do
  [[ -x "$BIN/${t}_fuzz" ]] || { echo "fuzz.sh: no target '$t' (have: ${ALL[*]})" >&2; exit 2; }
  seed "$t"
  mkdir -p "$BUILD/artifacts/$t" "$BUILD/logs"
  dict="$BUILD/dict/onnx.dict"
  [[ $t == json_loader || $t == run_model ]] && dict="$BUILD/dict/json.dict"
  [[ $t == npy ]] && dict=""
  log="$BUILD/logs/$t.log"
  before=$(ls "$BUILD/artifacts/$t" | wc -l)
  echo "== $t: ${SECS}s, corpus $(ls "$BUILD/corpus/$t" | wc -l) files"
  # -malloc_limit_mb: far above the targets' tensor budget (fuzz_util.h), so only a
  # size that escaped qrt's checks reaches it. -timeout: one input must finish in 30 s.
  "$BIN/${t}_fuzz" "$BUILD/corpus/$t" -max_total_time="$SECS" -max_len="$(max_len "$t")" \
    -timeout=30 -rss_limit_mb=3072 -malloc_limit_mb=512 -print_final_stats=1 \
    ${dict:+-dict="$dict"} -artifact_prefix="$BUILD/artifacts/$t/" >"$log" 2>&1
  rc=$?
  execs=$(grep -o 'stat::number_of_executed_units: [0-9]*' "$log" | awk '{print $2}')
  # libFuzzer's own count: the inputs that give distinct coverage (the folder also keeps seeds).
  units=$(grep -o 'corp: [0-9]*/[0-9A-Za-z]*' "$log" | tail -1 | cut -d' ' -f2)
  found=$(( $(ls "$BUILD/artifacts/$t" | wc -l) - before ))
  line="$t: ${SECS}s, ${execs:-?} executions, corpus ${units:-?} (libFuzzer) / $(ls "$BUILD/corpus/$t" | wc -l) files, $found new crash files, exit $rc"
  echo "$line"
  [[ $rc -ne 0 ]] && grep -m3 -E 'ERROR|runtime error|SUMMARY|==[0-9]+==' "$log" | sed 's/^/    /'
  summary+="$line"$'\n'
done
echo "---- summary"
printf '%s' "$summary"
