#define _GNU_SOURCE
#include "ProcessControl.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <spawn.h>
#include <sys/syscall.h>
#include <unistd.h>
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

int migrationkit_spawn(const char *path, char *const argv[], char *const envp[],
                       int input, int output, int error, int terminal, const char *directory, int *pid) {
    posix_spawn_file_actions_t actions;
    posix_spawnattr_t attributes;
    int result = posix_spawn_file_actions_init(&actions);
    if (result != 0) return result;
    result = posix_spawnattr_init(&attributes);
    if (result != 0) {
        posix_spawn_file_actions_destroy(&actions);
        return result;
    }
    sigset_t none, all;
    sigemptyset(&none);
    sigfillset(&all);
    if (terminal >= 0) result = posix_spawn_file_actions_addtcsetpgrp_np(&actions, terminal);
    if (result == 0) result = posix_spawn_file_actions_adddup2(&actions, input, STDIN_FILENO);
    if (result == 0) result = posix_spawn_file_actions_adddup2(&actions, output, STDOUT_FILENO);
    if (result == 0) result = posix_spawn_file_actions_adddup2(&actions, error, STDERR_FILENO);
    if (result == 0) result = posix_spawn_file_actions_addclosefrom_np(&actions, STDERR_FILENO + 1);
    if (result == 0 && directory != NULL) result = posix_spawn_file_actions_addchdir_np(&actions, directory);
    if (result == 0) result = posix_spawnattr_setflags(&attributes, POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF);
    if (result == 0) result = posix_spawnattr_setpgroup(&attributes, 0);
    if (result == 0) result = posix_spawnattr_setsigmask(&attributes, &none);
    if (result == 0) result = posix_spawnattr_setsigdefault(&attributes, &all);
    pid_t child = -1;
    if (result == 0) result = posix_spawn(&child, path, &actions, &attributes, argv, envp);
    if (result == 0) *pid = (int)child;
    posix_spawnattr_destroy(&attributes);
    posix_spawn_file_actions_destroy(&actions);
    return result;
}

int migrationkit_take_terminal(int terminal) {
    sigset_t ttou, previous;
    sigemptyset(&ttou);
    sigaddset(&ttou, SIGTTOU);
    pthread_sigmask(SIG_BLOCK, &ttou, &previous);
    int result = tcsetpgrp(terminal, getpgrp());
    int saved = errno;
    pthread_sigmask(SIG_SETMASK, &previous, NULL);
    errno = saved;
    return result;
}

int migrationkit_pidfd_open(int pid) {
    return (int)syscall(SYS_pidfd_open, (pid_t)pid, 0);
}

int migrationkit_pipe(int fds[2]) {
    return pipe2(fds, O_CLOEXEC);
}
