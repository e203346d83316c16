# Third-party dependencies: Debian packages (scripts/setup.sh installs them) and
# the pinned DuckDB artifacts that scripts/fetch-duckdb.sh puts in .deps/duckdb.
find_package(Threads REQUIRED)
find_package(PkgConfig REQUIRED)
pkg_check_modules(LIBZIP REQUIRED IMPORTED_TARGET libzip)
pkg_check_modules(LIBDEFLATE REQUIRED IMPORTED_TARGET libdeflate)
pkg_check_modules(OPENCC REQUIRED IMPORTED_TARGET opencc)  # traditional Chinese read as simplified
find_package(pugixml REQUIRED)
find_package(ZLIB REQUIRED)
find_package(CURL REQUIRED)
find_package(OpenSSL REQUIRED)  # SHA-256 (libcrypto)
find_package(SQLite3 REQUIRED)
find_package(nlohmann_json 3.10 REQUIRED)
find_package(yaml-cpp REQUIRED)  # the planning agent's YAML plans
find_package(Boost 1.81 REQUIRED CONFIG)  # Boost.Beast/Asio (header-only): the HTTP transport of `bioagent serve`
find_package(CLI11 CONFIG QUIET)
if(NOT TARGET CLI11::CLI11)
  find_path(CLI11_INCLUDE CLI/CLI.hpp REQUIRED)
  add_library(CLI11::CLI11 INTERFACE IMPORTED)
  target_include_directories(CLI11::CLI11 INTERFACE ${CLI11_INCLUDE})
endif()

find_library(SIMDJSON_LIB simdjson REQUIRED)
find_path(SIMDJSON_INCLUDE simdjson.h REQUIRED)
add_library(bioagent::simdjson UNKNOWN IMPORTED)
set_target_properties(bioagent::simdjson PROPERTIES IMPORTED_LOCATION ${SIMDJSON_LIB}
  INTERFACE_INCLUDE_DIRECTORIES ${SIMDJSON_INCLUDE})

find_library(RE2_LIB re2 REQUIRED)
find_path(RE2_INCLUDE re2/re2.h REQUIRED)
add_library(bioagent::re2 UNKNOWN IMPORTED)
set_target_properties(bioagent::re2 PROPERTIES IMPORTED_LOCATION ${RE2_LIB}
  INTERFACE_INCLUDE_DIRECTORIES ${RE2_INCLUDE})

# DuckDB 1.4.4: the pinned artifacts first, then a system installation.
set(BIOAGENT_DUCKDB_DIR "${CMAKE_SOURCE_DIR}/.deps/duckdb" CACHE PATH "Folder with lib/libduckdb.so and include/duckdb.h")
find_library(DUCKDB_LIB duckdb HINTS ${BIOAGENT_DUCKDB_DIR}/lib)
find_path(DUCKDB_INCLUDE duckdb.h HINTS ${BIOAGENT_DUCKDB_DIR}/include)
if(NOT DUCKDB_LIB OR NOT DUCKDB_INCLUDE)
  message(FATAL_ERROR "DuckDB not found: run scripts/setup.sh (it fetches the pinned 1.4.4 library), "
                      "or pass -DBIOAGENT_DUCKDB_DIR=<folder with lib/ and include/>")
endif()
add_library(bioagent::duckdb SHARED IMPORTED)
set_target_properties(bioagent::duckdb PROPERTIES IMPORTED_LOCATION ${DUCKDB_LIB}
  INTERFACE_INCLUDE_DIRECTORIES ${DUCKDB_INCLUDE})
get_filename_component(DUCKDB_LIB_DIR ${DUCKDB_LIB} DIRECTORY)
set(CMAKE_BUILD_RPATH ${DUCKDB_LIB_DIR})
set(CMAKE_INSTALL_RPATH ${DUCKDB_LIB_DIR})
message(STATUS "DuckDB: ${DUCKDB_LIB}")

# HTML parsing (gumbo) and PDF text (MuPDF, static, AGPL: the reason for our licence).
pkg_check_modules(GUMBO REQUIRED IMPORTED_TARGET gumbo)
add_library(bioagent::gumbo ALIAS PkgConfig::GUMBO)
pkg_check_modules(MUPDF_STATIC REQUIRED mupdf)
find_library(MUPDF_LIB NAMES libmupdf.a mupdf REQUIRED)
find_library(MUPDF_THIRD_LIB NAMES libmupdf-third.a mupdf-third REQUIRED)
find_library(MUJS_LIB mujs REQUIRED)
find_library(HARFBUZZ_LIB harfbuzz REQUIRED)
find_library(FREETYPE_LIB freetype REQUIRED)
find_library(OPENJP2_LIB openjp2 REQUIRED)
find_library(JBIG2_LIB jbig2dec REQUIRED)
find_library(JPEG_LIB jpeg REQUIRED)
find_library(PNG_LIB png16 REQUIRED)
find_library(BROTLIDEC_LIB brotlidec)
find_library(BROTLICOMMON_LIB brotlicommon)
add_library(bioagent::mupdf INTERFACE IMPORTED)
target_link_libraries(bioagent::mupdf INTERFACE ${MUPDF_LIB} ${MUPDF_THIRD_LIB} ${MUJS_LIB} ${HARFBUZZ_LIB}
  ${FREETYPE_LIB} ${OPENJP2_LIB} ${JBIG2_LIB} ${JPEG_LIB} ${PNG_LIB} ${BROTLIDEC_LIB} ${BROTLICOMMON_LIB} ZLIB::ZLIB m)

# Search collections: Xapian (BM25) and FAISS (dense vectors; static, with OpenMP and BLAS).
pkg_check_modules(XAPIAN REQUIRED IMPORTED_TARGET xapian-core)
add_library(bioagent::xapian ALIAS PkgConfig::XAPIAN)
find_package(OpenMP REQUIRED)
find_package(faiss REQUIRED)

# Indexed FASTA access for the gene-family pipeline (promoters, chromosome lengths).
pkg_check_modules(HTSLIB REQUIRED IMPORTED_TARGET htslib)
