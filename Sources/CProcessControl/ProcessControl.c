#define _GNU_SOURCE
#include "ProcessControl.h"

#include <sched.h>
#include <sys/prctl.h>
#include <sys/resource.h>

int migrationkit_set_dumpable(int dumpable) {
    return prctl(PR_SET_DUMPABLE, (unsigned long)dumpable, 0UL, 0UL, 0UL);
}

int migrationkit_get_dumpable(void) {
    return prctl(PR_GET_DUMPABLE, 0UL, 0UL, 0UL, 0UL);
}

int migrationkit_disable_core_files(void) {
    struct rlimit none = { 0, 0 };
    return setrlimit(RLIMIT_CORE, &none);
}

static long long soft_limit(int resource) {
    struct rlimit limit;
    if (getrlimit(resource, &limit) != 0 || limit.rlim_cur == RLIM_INFINITY) return -1;
    return (long long)limit.rlim_cur;
}

long long migrationkit_core_file_limit(void) {
    return soft_limit(RLIMIT_CORE);
}

long long migrationkit_memory_lock_limit(void) {
    return soft_limit(RLIMIT_MEMLOCK);
}

int migrationkit_unshare_filesystem(void) {
    return unshare(CLONE_FS);
}
