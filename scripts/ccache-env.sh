# Sourced by the build scripts: compile through ccache when it is installed
# (scripts/setup.sh installs it). Paths are hashed relative to the folder that
# holds the checkout, so two clones side by side share the cache.
ccache_args=()
if command -v ccache >/dev/null; then
  CCACHE_BASEDIR="$(cd .. && pwd)"
  export CCACHE_BASEDIR
  # The build folder's absolute path stays out of the hash (line tables then name
  # the folder that first compiled a file: only a debugger's source lookup sees it).
  export CCACHE_NOHASHDIR=1
  export CCACHE_SLOPPINESS="${CCACHE_SLOPPINESS:-include_file_mtime,include_file_ctime,time_macros}"
  ccache_args=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache -DCMAKE_C_COMPILER_LAUNCHER=ccache)
fi
