#ifndef MIGRATIONKIT_PROCESS_CONTROL_H
#define MIGRATIONKIT_PROCESS_CONTROL_H

/* prctl(2) is variadic, which Swift cannot call, setrlimit's resource type differs
 * between C libraries, and glibc declares pipe2 and posix_spawn's terminal and
 * closefrom actions only under _GNU_SOURCE: these wrappers give Swift fixed signatures. Each returns
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

/* posix_spawn(3) of the program at `path` (no PATH search) with `argv` and `envp`, for a
 * key command: its standard input, output and error are `input`, `output` and `error`;
 * no other descriptor of this process reaches it; every signal is at its default and
 * none blocked (this process may ignore SIGPIPE and block others); it runs in a process
 * group of its own, so that a command that overstays can be ended with whatever it
 * started. With `terminal` >= 0, that group is made the terminal's foreground group
 * before the program runs, so that a prompt of its own reads the terminal instead of
 * being stopped (SIGTTIN); `migrationkit_take_terminal` takes the terminal back. With
 * `directory` not NULL, the program starts in that folder (the tests' children; a key
 * command starts in the calling thread's folder).
 * Returns 0 with the child's pid in `pid`, or an errno value. */
int migrationkit_spawn(const char *path, char *const argv[], char *const envp[],
                       int input, int output, int error, int terminal, const char *directory, int *pid);

/* tcsetpgrp(terminal, getpgrp()) with SIGTTOU blocked: this process is then a
 * background group of the terminal, which SIGTTOU would stop. 0, or -1 and errno. */
int migrationkit_take_terminal(int terminal);

/* pidfd_open(2): a descriptor that polls readable once the process `pid` has ended
 * (close-on-exec), or -1 and errno. */
int migrationkit_pidfd_open(int pid);

/* pipe2(fds, O_CLOEXEC), declared under _GNU_SOURCE only. */
int migrationkit_pipe(int fds[2]);

#endif
