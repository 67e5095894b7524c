/*
 * library_types.h (Genesis CUDA emulator) — the enums of CUDA's library_types.h that
 * cuda/ uses: libraryPropertyType, the argument of cublasGetProperty, and cudaDataType
 * (cublasGemmEx's element types). Values as documented
 * in the CUDA Toolkit (MAJOR_VERSION = 0, MINOR_VERSION = 1, PATCH_LEVEL = 2).
 */
#ifndef GEN_CUEMU_LIBRARY_TYPES_H
#define GEN_CUEMU_LIBRARY_TYPES_H

typedef enum libraryPropertyType_t {
    MAJOR_VERSION = 0,
    MINOR_VERSION = 1,
    PATCH_LEVEL = 2
} libraryPropertyType;

/* The element types of cublasGemmEx that cuda/ passes (values as in CUDA's library_types.h) */
typedef enum cudaDataType_t {
    CUDA_R_32F = 0,
    CUDA_R_16F = 2,
    CUDA_R_16BF = 14
} cudaDataType;

#endif /* GEN_CUEMU_LIBRARY_TYPES_H */
