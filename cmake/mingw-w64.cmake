# CMake toolchain for the Windows (x86_64) build, cross-compiled with
# Debian's mingw-w64 (packages mingw-w64, libz-mingw-w64-dev).
#   cmake -S . -B build-windows -DCMAKE_TOOLCHAIN_FILE=cmake/mingw-w64.cmake
# HKS_WINDOWS_DEPS (optional): a prefix with expat and jansson built for the
# target (scripts/windows.sh builds them from Debian's source packages).
set(CMAKE_SYSTEM_NAME Windows)
set(CMAKE_SYSTEM_PROCESSOR x86_64)
set(HKS_MINGW_TRIPLE x86_64-w64-mingw32)

# The POSIX-threads flavour of the compiler links its runtime statically
# below; the project itself uses Win32 threads (src/core/platform.c).
find_program(CMAKE_C_COMPILER NAMES ${HKS_MINGW_TRIPLE}-gcc-posix ${HKS_MINGW_TRIPLE}-gcc REQUIRED)
find_program(CMAKE_RC_COMPILER NAMES ${HKS_MINGW_TRIPLE}-windres)
set(CMAKE_AR ${HKS_MINGW_TRIPLE}-ar CACHE FILEPATH "")
set(CMAKE_RANLIB ${HKS_MINGW_TRIPLE}-ranlib CACHE FILEPATH "")

set(CMAKE_FIND_ROOT_PATH /usr/${HKS_MINGW_TRIPLE})
if(DEFINED ENV{HKS_WINDOWS_DEPS})
  set(HKS_WINDOWS_DEPS "$ENV{HKS_WINDOWS_DEPS}" CACHE PATH "prefix of expat and jansson for Windows")
endif()
if(HKS_WINDOWS_DEPS)
  list(APPEND CMAKE_FIND_ROOT_PATH ${HKS_WINDOWS_DEPS})
endif()
set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
set(CMAKE_FIND_ROOT_PATH_MODE_LIBRARY ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_INCLUDE ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_PACKAGE ONLY)
# Static archives first, so that hkspline.exe needs no DLL beside it.
set(CMAKE_FIND_LIBRARY_SUFFIXES .a .dll.a .lib)
set(ZLIB_USE_STATIC_LIBS ON)

# C99/C11 printf and strtod from the mingw runtime (msvcrt's differ: %zu,
# rounding of %.9g), so that text output is identical to Linux.
add_compile_definitions(__USE_MINGW_ANSI_STDIO=1)
# The gcc runtime and winpthreads linked in: the .exe runs with only Wine.
set(CMAKE_EXE_LINKER_FLAGS_INIT "-static -static-libgcc")
set(CMAKE_SHARED_LINKER_FLAGS_INIT "-static -static-libgcc")
set(CMAKE_MODULE_LINKER_FLAGS_INIT "-static -static-libgcc")

find_program(HKS_WINE NAMES wine wine64)
if(HKS_WINE)
  set(CMAKE_CROSSCOMPILING_EMULATOR ${HKS_WINE})
endif()
