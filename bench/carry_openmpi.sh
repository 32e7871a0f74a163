#!/usr/bin/env bash
# Packs Debian 12's Open MPI runtime (mpirun, libmpi and the libraries it needs, its MCA and PMIx
# components, help texts) into a relocatable folder, for a machine without MPI or a package
# manager (the GPU machine of docs/performance.md, "Collectives over MPI"). Source OUT/env.sh
# there: OPAL_PREFIX moves Open MPI's install paths and the component paths name the carried
# plugins. Components whose libraries the folder does not carry (UCX, libfabric, verbs, PSM,
# OpenSHMEM) are left out; shared memory (vader) and TCP remain.
# Usage: bench/carry_openmpi.sh OUT
set -euo pipefail
out=${1:?usage: bench/carry_openmpi.sh OUT}
lib=/usr/lib/x86_64-linux-gnu
comp=$out/usr/lib/x86_64-linux-gnu/openmpi/lib/openmpi3
rm -rf "$out"
mkdir -p "$out/usr/bin" "$out/lib" "$comp" "$out/usr/share" "$out/pmix2/lib"
cp /usr/bin/orterun /usr/bin/orted "$out/usr/bin/"
ln -s orterun "$out/usr/bin/mpirun"
cp -rL $lib/openmpi/lib/openmpi3/. "$comp/"
cp -r /usr/share/openmpi "$out/usr/share/"
cp -r $lib/pmix2/share "$out/pmix2/"
cp -rL $lib/pmix2/lib/pmix "$out/pmix2/lib/"
for l in libmpi.so.40 libmpi_cxx.so.40 libopen-rte.so.40 libopen-pal.so.40 libpmix.so.2 libhwloc.so.15 \
         libevent_core-2.1.so.7 libevent_pthreads-2.1.so.7 libevent-2.1.so.7 libmca_common_sm.so.40 \
         libmca_common_monitoring.so.50 libmca_common_ompio.so.41 libltdl.so.7 libnuma.so.1 libmunge.so.2; do
  cp -L "$(ls $lib/$l /lib/x86_64-linux-gnu/$l 2>/dev/null | head -1)" "$out/lib/"
done
# Only what the GPU machine's base system has may stay outside the folder.
for f in "$comp"/*.so "$out"/pmix2/lib/pmix/*.so; do
  if LD_LIBRARY_PATH=$out/lib ldd "$f" | awk '$3 ~ /^\// {print $3} /not found/ {print $1}' | grep -v "^$out" |
     grep -q -v -E "/lib(c|m|udev|z)\.so"; then
    rm "$f"
  fi
done
strip --strip-unneeded "$out"/lib/*.so* "$comp"/*.so "$out"/pmix2/lib/pmix/*.so
cat >"$out/env.sh" <<'ENV'
R="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
export OPAL_PREFIX="$R/usr" PATH="$R/usr/bin:$PATH" LD_LIBRARY_PATH="$R/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
export OMPI_MCA_mca_base_component_path="$R/usr/lib/x86_64-linux-gnu/openmpi/lib/openmpi3"
export PMIX_MCA_mca_base_component_path="$R/pmix2/lib/pmix" PMIX_INSTALL_PREFIX="$R/pmix2"
export OMPI_MCA_mca_base_component_show_load_errors=0 OMPI_MCA_btl=self,vader OMPI_MCA_pml=ob1
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
ENV
du -sh "$out"
