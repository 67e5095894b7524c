/*
 * cuda_module.h — what the CUDA module's loader (cuda_module.c) offers besides the backend
 * and the device query of backend.h: an entry of the loaded module by name, for the parts of
 * Genesis above the backend that the module also implements (the NCCL communicator,
 * src/comm/comm.c). The backend layer names none of them.
 */
#ifndef GEN_CUDA_MODULE_H
#define GEN_CUDA_MODULE_H

/* The module's exported function `name`, loading the module first. NULL when the module is
 * not loaded (*why: the reason, "" when it is loaded) or has no such entry. Cast with
 * `*(void **)&fn = ...` (POSIX dlsym's rule). Without CUDA support: NULL and a reason. */
void *gen_cuda_module_entry(const char *name, const char **why);

#endif
