#!/usr/bin/env bash
# Run-time addresses (docs/SYMBOLIC.md, "Run-time addresses"): histogram
# kernels `atomicAdd(&hist[data[tid]], 1)` with T invocations and K bins
# (data[t] = t mod K, forall: the exact histogram), checked by the symbolic
# engine, and the same kernel with the bin computed while translating
# (`tid mod K`, fixed addresses: `fixed` rows), which isolates the cost of
# the run-time address; prints potential events, variables, clauses and
# wall time.
# Usage: bash bench/indexed.sh
set -euo pipefail
cd "$(dirname "$0")/.."
cargo build --release --quiet --bin gpumc
GPUMC=${CARGO_TARGET_DIR:-$PWD/target}/release/gpumc
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT

kernel() { # T K [fixed]
    local t=$1 k=$2 data="" zeros="" cond=""
    for i in $(seq 0 $((t - 1))); do data+="${data:+, }$((i % k))"; done
    for b in $(seq 0 $((k - 1))); do
        zeros+="${zeros:+, }0"
        local n=$(((t - b + k - 1) / k))
        cond+="${cond:+ and }%hist[0][$b] == $n"
    done
    cat <<EOF
; @Input: %data = {{$data}}, %hist = {{$zeros}}
; @Output: forall ($cond)
; @Config: $t, 1, 1
               OpCapability Shader
               OpCapability VulkanMemoryModel
               OpMemoryModel Logical Vulkan
               OpEntryPoint GLCompute %main "main" %ids
               OpDecorate %ids BuiltIn GlobalInvocationId
               OpDecorate %rt ArrayStride 4
               OpMemberDecorate %st 0 Offset 0
               OpDecorate %st Block
       %void = OpTypeVoid
       %uint = OpTypeInt 32 0
     %v3uint = OpTypeVector %uint 3
         %rt = OpTypeRuntimeArray %uint
         %st = OpTypeStruct %rt
         %fn = OpTypeFunction %void
     %p_sbst = OpTypePointer StorageBuffer %st
       %p_sb = OpTypePointer StorageBuffer %uint
      %p_in3 = OpTypePointer Input %v3uint
       %p_in = OpTypePointer Input %uint
         %c0 = OpConstant %uint 0
         %c1 = OpConstant %uint 1
         %cK = OpConstant %uint $k
        %ids = OpVariable %p_in3 Input
       %data = OpVariable %p_sbst StorageBuffer
       %hist = OpVariable %p_sbst StorageBuffer
       %main = OpFunction %void None %fn
      %entry = OpLabel
        %idp = OpAccessChain %p_in %ids %c0
        %tid = OpLoad %uint %idp
         %dp = OpAccessChain %p_sb %data %c0 %tid
$(if [ -n "${3:-}" ]; then echo "          %d = OpUMod %uint %tid %cK"; else echo "          %d = OpLoad %uint %dp"; fi)
         %hp = OpAccessChain %p_sb %hist %c0 %d
          %o = OpAtomicIAdd %uint %hp %c1 %c0 %c1
               OpReturn
               OpFunctionEnd
EOF
}

now() { date +%s.%N; }
run() { # label file
    local t0 t1 out sizes ev va cl
    t0=$(now)
    out=$(GPUMC_SYMBOLIC_DEBUG=1 "$GPUMC" check --engine symbolic "$2" 2>&1)
    t1=$(now)
    echo "$out" | grep -q PASS || { echo "unexpected verdict: $out" >&2; exit 1; }
    sizes=$(echo "$out" | grep -o '[0-9]* events, [0-9]* vars, [0-9]* clauses' | tail -1)
    read -r ev _ va _ cl _ <<<"$sizes"
    printf '%-7s %-4s %-4s %-8s %-10s %-10s %.2f\n' "$1" "$T" "$K" "$ev" "$va" "$cl" "$(echo "$t1 - $t0" | bc)"
}
printf '%-7s %-4s %-4s %-8s %-10s %-10s %s\n' address T K events vars clauses seconds
# (T = 32 with K = 4 is left out: eight increments of one bin take the
# solver ~40 s with fixed and run-time addresses alike.)
for T in 4 8 16 32; do
    for K in 4 16 64; do
        [ "$T" = 32 ] && [ "$K" = 4 ] && continue
        kernel "$T" "$K" >"$dir/run.spvasm"
        kernel "$T" "$K" fixed >"$dir/fixed.spvasm"
        run run-time "$dir/run.spvasm"
        run fixed "$dir/fixed.spvasm"
    done
done
