/*
 * system.c - what the machine says about itself, and the CPU to measure on.
 */
#include "system.h"
#include "timer.h"
#include "fs.h"
#include "str.h"

#include <errno.h>
#include <math.h>
#include <sched.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>
#include "banned.h"
#endif

#define MAX_CPUS 1024
#define DEFAULT_LLC (32u << 20)
/* The most a cache cpuid reports (no sysfs: a VM) is taken for.  A
 * hypervisor may report the whole socket's (a bhyve guest on an EPYC read
 * 508 MB, and cache: cold then evicted 1 GB a sample: two rounds in ten
 * seconds), where one core reaches its chiplet's, 96 MB at most on
 * today's x86 parts; twice 64 MB, what cold evicts, covers that. */
#define MAX_CPUID_LLC ((size_t)64 << 20)

void pg_system_warn(pg_system *sys, const char *fmt, ...)
{
    va_list ap;
    pg_str s = PG_STR_INIT;

    va_start(ap, fmt);
    pg_str_vprintf(&s, fmt, ap);
    va_end(ap);
    sys->warnings =
        pg_realloc(sys->warnings, (sys->nwarnings + 1) * sizeof(char *));
    sys->warnings[sys->nwarnings++] = pg_str_detach(&s);
}

static char *read_all(const char *root, const char *path)
{
    char *full = pg_strdupf("%s%s", root, path), *text = NULL;
    int err = pg_read_file(&text, NULL, full, 4 << 20);

    free(full);
    return err < 0 ? NULL : text;
}

/* The first line of root + path, trimmed; NULL when unreadable. */
static char *read_line(const char *root, const char *path)
{
    char *text = read_all(root, path);

    if (text)
        text[strcspn(text, "\n")] = '\0';
    return text;
}

int pg_system_cpu_usage(double *busy, double *steal, const char *before,
                        const char *after, int cpu)
{
    unsigned long long v[2][10];
    const char *texts[2] = {before, after};
    char tag[32];
    double total = 0, idle = 0;
    int k, i;

    snprintf(tag, sizeof(tag), "\ncpu%d ", cpu);
    for (k = 0; k < 2; k++) {
        const char *p = texts[k] ? strstr(texts[k], tag) : NULL;
        memset(v[k], 0, sizeof(v[k]));
        if (!p)
            return -1;
        /* user nice system idle iowait irq softirq steal guest guest_nice */
        sscanf(p + strlen(tag), "%llu %llu %llu %llu %llu %llu %llu %llu",
               &v[k][0], &v[k][1], &v[k][2], &v[k][3], &v[k][4], &v[k][5],
               &v[k][6], &v[k][7]);
    }
    for (i = 0; i < 8; i++) {
        double d = v[1][i] >= v[0][i] ? (double)(v[1][i] - v[0][i]) : 0;
        total += d;
        if (i == 3 || i == 4)
            idle += d;
    }
    *steal = total > 0 ? (double)(v[1][7] - v[0][7]) / total : 0;
    *busy = total > 0 ? (total - idle) / total - *steal : 0;
    if (*busy < 0)
        *busy = 0;
    return 0;
}

static void sleep_ms(int ms)
{
    struct timespec ts = {ms / 1000, (long)(ms % 1000) * 1000000};

    while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
        ;
}

/* Chooses the quietest CPU this process may run on: the least busy over
 * the sample, the highest numbered among equals (CPU 0 takes most of the
 * interrupts on many machines). */
static void choose_cpu(pg_system *sys, const char *root, int sample_ms)
{
    char *before = read_all(root, "/proc/stat"), *after;
    cpu_set_t allowed;
    double best_busy = INFINITY;
    int cpu, real = !*root;

    if (sample_ms > 0)
        sleep_ms(sample_ms);
    after = read_all(root, "/proc/stat");
    if (real && sched_getaffinity(0, sizeof(allowed), &allowed) < 0)
        real = 0;
    for (cpu = 0; cpu < MAX_CPUS && cpu < CPU_SETSIZE; cpu++) {
        double busy, steal;
        if (real && !CPU_ISSET(cpu, &allowed))
            continue;
        if (pg_system_cpu_usage(&busy, &steal, before, after, cpu) < 0)
            continue;
        if (busy <= best_busy) {
            best_busy = busy;
            sys->cpu = cpu;
            sys->cpu_busy = busy;
            sys->steal = steal;
        }
    }
    free(before);
    free(after);
}

/* The value of `cpuinfo`'s first line for `key`, a new string; NULL. */
static char *cpuinfo_value(const char *cpuinfo, const char *key)
{
    const char *p = cpuinfo;
    size_t klen = strlen(key);

    while (p && *p) {
        const char *eol = strchrnul(p, '\n');
        if (!strncmp(p, key, klen) &&
            (p[klen] == ' ' || p[klen] == '\t' || p[klen] == ':')) {
            const char *colon = memchr(p, ':', (size_t)(eol - p));
            if (colon) {
                colon++;
                while (*colon == ' ' || *colon == '\t')
                    colon++;
                return pg_strdupf("%.*s", (int)(eol - colon), colon);
            }
        }
        p = *eol ? eol + 1 : NULL;
    }
    return NULL;
}

char *pg_system_cpu_model(const char *root)
{
    char *cpuinfo = read_all(root, "/proc/cpuinfo");
    char *model = cpuinfo ? cpuinfo_value(cpuinfo, "model name") : NULL;

    if (cpuinfo && !model)
        model = cpuinfo_value(cpuinfo, "Model"); /* ARM boards */
    free(cpuinfo);
    return model;
}

/* 1 when /proc/cpuinfo's first "flags" line has "hypervisor". */
static int cpuinfo_says_vm(const char *root)
{
    char *cpuinfo = read_all(root, "/proc/cpuinfo");
    char *flags = cpuinfo ? strstr(cpuinfo, "\nflags") : NULL;
    int vm = 0;

    if (flags) {
        flags[strcspn(flags + 1, "\n") + 1] = '\0';
        vm = strstr(flags, " hypervisor") != NULL;
    }
    free(cpuinfo);
    return vm;
}

static char *hypervisor_name(const char *root)
{
    char *type;
    int vm = cpuinfo_says_vm(root);

    if ((type = read_line(root, "/sys/hypervisor/type")) && *type)
        return type;
    free(type);
    if (!vm)
        return NULL;
#if defined(__x86_64__) || defined(__i386__)
    if (!*root) {
        static const char *const names[][2] = {
            {"KVMKVMKVM", "KVM"},          {"Microsoft Hv", "Hyper-V"},
            {"VMwareVMware", "VMware"},    {"XenVMMXenVMM", "Xen"},
            {"TCGTCGTCGTCG", "QEMU"},      {"ACRNACRNACRN", "ACRN"},
            {" lrpepyh  vr", "Parallels"}, {"bhyve bhyve ", "bhyve"},
            {"VBoxVBoxVBox", "VirtualBox"}};
        unsigned a, regs[3];
        char vendor[13];
        size_t i;
        __cpuid(0x40000000, a, regs[0], regs[1], regs[2]);
        memcpy(vendor, regs, 12);
        vendor[12] = '\0';
        for (i = 0; i < sizeof(names) / sizeof(names[0]); i++)
            if (!strncmp(vendor, names[i][0], strlen(names[i][0])))
                return pg_strdup(names[i][1]);
    }
#endif
    return pg_strdup("a hypervisor");
}

/* The largest cache the chosen CPU has, from sysfs ("32768K"). */
static size_t last_level_cache(const char *root, int cpu)
{
    size_t best = 0;
    int i;

    for (i = 0; i < 8; i++) {
        char path[128], *size;
        unsigned long long n;
        char unit = 0;
        snprintf(path, sizeof(path),
                 "/sys/devices/system/cpu/cpu%d/cache/index%d/size",
                 cpu < 0 ? 0 : cpu, i);
        if (!(size = read_line(root, path)))
            continue;
        if (sscanf(size, "%llu%c", &n, &unit) >= 1) {
            if (unit == 'K')
                n <<= 10;
            else if (unit == 'M')
                n <<= 20;
            if (n > best)
                best = (size_t)n;
        }
        free(size);
    }
#ifdef _SC_LEVEL3_CACHE_SIZE
    if (!best && !*root) {
        long n = sysconf(_SC_LEVEL3_CACHE_SIZE);
        if (n > 0)
            best = (size_t)n < MAX_CPUID_LLC ? (size_t)n : MAX_CPUID_LLC;
    }
#endif
    return best ? best : DEFAULT_LLC;
}

static void check_frequency(pg_system *sys, const char *root)
{
    char path[128], *v;

    snprintf(path, sizeof(path),
             "/sys/devices/system/cpu/cpu%d/cpufreq/scaling_governor",
             sys->cpu < 0 ? 0 : sys->cpu);
    sys->governor = read_line(root, path);
    if (sys->governor && strcmp(sys->governor, "performance"))
        pg_system_warn(sys,
                       "CPU %d's frequency governor is '%s', not "
                       "'performance': its clock follows the load (set it "
                       "with: cpupower frequency-set -g performance)",
                       sys->cpu, sys->governor);

    if ((v = read_line(root,
                       "/sys/devices/system/cpu/intel_pstate/no_turbo")) &&
        !strcmp(v, "0"))
        pg_system_warn(sys, "turbo boost is on: the clock depends on "
                            "temperature and on the other cores (turn it "
                            "off: echo 1 > /sys/devices/system/cpu/"
                            "intel_pstate/no_turbo)");
    free(v);
    if ((v = read_line(root, "/sys/devices/system/cpu/cpufreq/boost")) &&
        !strcmp(v, "1"))
        pg_system_warn(sys, "CPU boost is on: the clock depends on "
                            "temperature and on the other cores (turn it "
                            "off: echo 0 > /sys/devices/system/cpu/cpufreq/"
                            "boost)");
    free(v);
}

/* The online CPUs: the "cpuN" lines of root's /proc/stat (so that a test's
 * fake root is its own machine), else what sysconf says. */
static int count_cpus(const char *root)
{
    char *text = read_all(root, "/proc/stat"), *p;
    int n = 0;

    for (p = text; p && (p = strstr(p, "\ncpu")); p += 4)
        if (p[4] >= '0' && p[4] <= '9')
            n++;
    free(text);
    return n > 0 ? n : (int)sysconf(_SC_NPROCESSORS_ONLN);
}

void pg_system_check(pg_system *out, const char *root, int sample_ms)
{
    char *v;

    memset(out, 0, sizeof(*out));
    out->cpu = -1;
    out->load1 = NAN;
    out->ncpus = count_cpus(root);
    if (!*root)
        out->timer = pg_timer_current()->chosen;

    choose_cpu(out, root, sample_ms);
    out->hypervisor = hypervisor_name(root);
    out->llc_bytes = last_level_cache(root, out->cpu);
    check_frequency(out, root);

    if ((v = read_line(root, "/proc/loadavg")))
        out->load1 = strtod(v, NULL);
    free(v);
    if (out->ncpus > 0 && out->load1 >= out->ncpus)
        pg_system_warn(out,
                       "the load average is %.2f on %d CPUs: other work "
                       "competes with the measurement",
                       out->load1, out->ncpus);
    if (out->cpu >= 0 && out->cpu_busy > 0.25)
        pg_system_warn(out,
                       "CPU %d was %.0f%% busy with other work while "
                       "perfgate looked: expect longer measurements",
                       out->cpu, out->cpu_busy * 100);
    if (out->steal > 0.05)
        pg_system_warn(out,
                       "the hypervisor took %.0f%% of CPU %d's time while "
                       "perfgate looked",
                       out->steal * 100, out->cpu);
    if (out->hypervisor)
        pg_system_warn(out,
                       "running in a virtual machine (%s): the host's other "
                       "guests can slow it at any moment; interleaving keeps "
                       "the comparison fair, but expect more noise",
                       out->hypervisor);
}

int pg_system_pin(int cpu)
{
    cpu_set_t set;

    if (cpu < 0 || cpu >= CPU_SETSIZE)
        return -1;
    CPU_ZERO(&set);
    CPU_SET(cpu, &set);
    return sched_setaffinity(0, sizeof(set), &set) < 0 ? -1 : 0;
}

void pg_system_clear(pg_system *sys)
{
    size_t i;

    for (i = 0; i < sys->nwarnings; i++)
        free(sys->warnings[i]);
    free(sys->warnings);
    free(sys->hypervisor);
    free(sys->governor);
    memset(sys, 0, sizeof(*sys));
    sys->cpu = -1;
}
