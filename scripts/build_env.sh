# Sourced by the build scripts (setup.sh, python-test.sh, fuzz/run.sh): where the CUDA toolkit is, and ccache in
# front of the C++ compiler where it is installed. The library's objects compile the same way in ./build and in the
# wheel's build folder (same compiler, same flags, folders at the same depth below CCACHE_BASEDIR), so that
# pip install . after scripts/setup.sh takes its objects from the cache instead of compiling them again.
if ! command -v nvcc >/dev/null 2>&1 && [ -x /usr/local/cuda/bin/nvcc ]; then export PATH=/usr/local/cuda/bin:$PATH; fi
if [ -z "${CUDAToolkit_ROOT:-}" ] && [ -d /usr/local/cuda ]; then export CUDAToolkit_ROOT=/usr/local/cuda; fi
if command -v ccache >/dev/null 2>&1; then
  export CMAKE_CXX_COMPILER_LAUNCHER=${CMAKE_CXX_COMPILER_LAUNCHER:-ccache}
  export CCACHE_BASEDIR=${CCACHE_BASEDIR:-$PWD}
  # ccache hashes the compiler's name: name the same one wherever CMake would pick c++ in one build, g++ in another.
  export CXX=${CXX:-c++}
fi
