#ifndef MIGRATIONKIT_PROCESS_CONTROL_H
#define MIGRATIONKIT_PROCESS_CONTROL_H

/* prctl(2) is variadic, which Swift cannot call, and setrlimit's resource type
 * differs between C libraries: these wrappers give Swift fixed signatures. Each returns
 * 0 on success and -1 with errno set on failure, like the calls they wrap. */

/* prctl(PR_SET_DUMPABLE, dumpable). */
int migrationkit_set_dumpable(int dumpable);

/* prctl(PR_GET_DUMPABLE): 0 or 1, or -1. */
int migrationkit_get_dumpable(void);

/* setrlimit(RLIMIT_CORE, {0, 0}): no core file, soft or hard, for good. */
int migrationkit_disable_core_files(void);

/* The soft RLIMIT_CORE and RLIMIT_MEMLOCK in bytes (-1 for unlimited or on failure). */
long long migrationkit_core_file_limit(void);
long long migrationkit_memory_lock_limit(void);

/* unshare(CLONE_FS): from here on the calling thread (and the threads it starts) has a
 * working folder and umask of its own, which chdir(2) and umask(2) change for it alone.
 * Linux only; declared by <sched.h> under _GNU_SOURCE, which Swift does not set. */
int migrationkit_unshare_filesystem(void);

#endif
