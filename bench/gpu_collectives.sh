#!/usr/bin/env bash
# bench_collectives on the GPU machine: 1, 2 and 4 processes sharing its one GPU through NVIDIA's
# OpenCL, with Open MPI carried by bench/carry_openmpi.sh (docs/performance.md, "Collectives over MPI").
# Usage: bench/gpu_collectives.sh STAGE OMPI OUT
#   STAGE  an install tree with bench_collectives in bin/ and the libraries it needs in lib/
#   OMPI   the folder bench/carry_openmpi.sh made;  OUT  where the logs and CSV files go
# Environment: COLLS (default all_reduce,broadcast,all_gather,copy).
set -uo pipefail
st=$(cd "${1:?usage: STAGE OMPI OUT}" && pwd)
source "${2:?usage: STAGE OMPI OUT}/env.sh"
out=${3:?usage: STAGE OMPI OUT}
mkdir -p "$out" /tmp/icd && echo libnvidia-opencl.so.1 >/tmp/icd/nvidia.icd
export OCL_ICD_VENDORS=/tmp/icd LD_LIBRARY_PATH=$st/lib:$LD_LIBRARY_PATH XD_CACHE_DIR=/tmp/xdcache
export XD_BACKEND=opencl OMP_NUM_THREADS=1 PMIX_MCA_pcompress_base_silence_warning=1
nvidia-smi --query-gpu=name,driver_version --format=csv | tail -1
mpirun --version | head -1
for np in 1 2 4; do
  echo "=== np $np"
  timeout 280 mpirun -np "$np" "$st/bin/bench_collectives" --collectives "${COLLS:-all_reduce,broadcast,all_gather,copy}" \
    --check 0 --csv "$out/gpu-np$np.csv" 2>&1 | tee "$out/gpu-np$np.log" | grep -v "^$"
done
