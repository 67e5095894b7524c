/*
 * library_types.h (Genesis CUDA emulator) — the one enum of CUDA's library_types.h that
 * cuda/ uses: libraryPropertyType, the argument of cublasGetProperty. Values as documented
 * in the CUDA Toolkit (MAJOR_VERSION = 0, MINOR_VERSION = 1, PATCH_LEVEL = 2).
 */
#ifndef GEN_CUEMU_LIBRARY_TYPES_H
#define GEN_CUEMU_LIBRARY_TYPES_H

typedef enum libraryPropertyType_t {
    MAJOR_VERSION = 0,
    MINOR_VERSION = 1,
    PATCH_LEVEL = 2
} libraryPropertyType;

#endif /* GEN_CUEMU_LIBRARY_TYPES_H */
