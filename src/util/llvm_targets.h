/* llvm_targets.h: registering LLVM's native target, once per process.
 *
 * LLVM's TargetRegistry is a global list with no lock: two threads registering
 * the same target at once can link it into the list twice (a cycle). The
 * emitter (compiling) and the ORC loader (a kernel from the disk cache, with
 * no compile before it) both need the registry, so both go through this one
 * guard rather than a guard each. */
#ifndef TILE_UTIL_LLVM_TARGETS_H
#define TILE_UTIL_LLVM_TARGETS_H

/* Native target, its MC layer, asm printer and asm parser; thread-safe. */
void llvm_targets_init(void);

#endif
