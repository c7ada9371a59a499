/*
 * The system checks against a fake /proc and /sys, and the timer's choice.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fs.h"
#include "str.h"
#include "system.h"
#include "test.h"
#include "timer.h"

static char *fake_root(void)
{
    char tmpl[] = "/tmp/pg-test-root-XXXXXX";
    char *dir = mkdtemp(tmpl);

    return dir ? pg_strdup(dir) : NULL;
}

static void put(const char *root, const char *path, const char *text)
{
    char *full = pg_strdupf("%s%s", root, path), *dir = pg_path_dirname(full);

    pg_mkdir_p(dir);
    CHECK(pg_write_file(full, text, strlen(text), 0) == 0);
    free(dir);
    free(full);
}

static int has_warning(const pg_system *s, const char *part)
{
    size_t i;

    for (i = 0; i < s->nwarnings; i++)
        if (strstr(s->warnings[i], part))
            return 1;
    return 0;
}

static const char stat_text[] =
    "cpu  200 0 200 1600 0 0 0 0 0 0\n"
    "cpu0 100 0 100 800 0 0 0 0 0 0\n"
    "cpu1 100 0 100 800 0 0 0 0 0 0\n"
    "intr 0\n";

static void noisy_machine(void)
{
    char *root = fake_root();
    pg_system s;

    if (!root) {
        CHECK(0);
        return;
    }
    put(root, "/proc/stat", stat_text);
    put(root, "/proc/loadavg", "9.50 4.00 2.00 3/200 1234\n");
    put(root, "/proc/cpuinfo",
        "processor\t: 0\nflags\t\t: fpu tsc hypervisor lm\n\n");
    put(root, "/sys/devices/system/cpu/cpu1/cpufreq/scaling_governor",
        "powersave\n");
    put(root, "/sys/devices/system/cpu/intel_pstate/no_turbo", "0\n");
    put(root, "/sys/devices/system/cpu/cpu1/cache/index0/size", "48K\n");
    put(root, "/sys/devices/system/cpu/cpu1/cache/index3/size", "32768K\n");

    pg_system_check(&s, root, 0);
    /* Equally idle: the highest-numbered CPU, away from CPU 0's
     * interrupts. */
    CHECK(s.cpu == 1);
    CHECK(s.llc_bytes == 32u << 20);
    CHECK_STR(s.governor, "powersave");
    CHECK_STR(s.hypervisor, "a hypervisor");
    CHECK_NEAR(s.load1, 9.5, 1e-9);
    CHECK(has_warning(&s, "governor is 'powersave'"));
    CHECK(has_warning(&s, "turbo boost is on"));
    /* The fake machine's two CPUs, not this machine's count. */
    CHECK(s.ncpus == 2);
    CHECK(has_warning(&s, "the load average is 9.50"));
    CHECK(has_warning(&s, "virtual machine"));
    pg_system_clear(&s);
    pg_rm_rf(root);
    free(root);
}

static void quiet_machine(void)
{
    char *root = fake_root();
    pg_system s;

    if (!root) {
        CHECK(0);
        return;
    }
    put(root, "/proc/stat", stat_text);
    put(root, "/proc/loadavg", "0.10 0.20 0.30 1/100 99\n");
    put(root, "/proc/cpuinfo", "processor\t: 0\nflags\t\t: fpu tsc lm\n\n");
    put(root, "/sys/devices/system/cpu/cpu1/cpufreq/scaling_governor",
        "performance\n");
    put(root, "/sys/devices/system/cpu/intel_pstate/no_turbo", "1\n");

    pg_system_check(&s, root, 0);
    CHECK(s.nwarnings == 0);
    CHECK(s.hypervisor == NULL);
    CHECK(s.llc_bytes > 0); /* a default when sysfs does not say */
    pg_system_clear(&s);
    pg_rm_rf(root);
    free(root);
}

static void cpu_usage(void)
{
    const char *before = "cpu  0 0 0 0\ncpu0 100 0 100 800 0 0 0 0 0 0\n"
                         "cpu1 100 0 100 800 0 0 0 0 0 0\n";
    const char *after = "cpu  0 0 0 0\ncpu0 100 0 100 900 0 0 0 0 0 0\n"
                        "cpu1 170 0 10 820 0 0 0 10 0 0\n";
    double busy, steal;

    CHECK(pg_system_cpu_usage(&busy, &steal, before, after, 0) == 0);
    CHECK_NEAR(busy, 0, 1e-9);
    CHECK(pg_system_cpu_usage(&busy, &steal, before, after, 1) == 0);
    /* 100 ticks passed: 70 user, 10 system, 10 stolen, 20 idle. */
    CHECK_NEAR(busy, 0.8 - 0.1, 1e-9);
    CHECK_NEAR(steal, 0.1, 1e-9);
    CHECK(pg_system_cpu_usage(&busy, &steal, before, after, 7) < 0);
}

static void timer_choice(void)
{
    pg_clock_info c[3];
    pg_timer t;

    memset(c, 0, sizeof(c));
    c[0].overhead_ns = 8, c[0].resolution_ns = 0.3, c[0].usable = 0;
    c[1].overhead_ns = 20, c[1].resolution_ns = 1, c[1].usable = 1;
    c[2].overhead_ns = 18, c[2].resolution_ns = 4, c[2].usable = 1;
    /* The best usable one: the unusable TSC does not count. */
    CHECK(pg_timer_best(c, 3) == 1);
    c[0].usable = 1;
    CHECK(pg_timer_best(c, 3) == 0);
    c[0].usable = c[1].usable = c[2].usable = 0;
    CHECK(pg_timer_best(c, 3) == -1);

    /* The real clocks: whichever wins, its figures are measured. */
    pg_timer_select(&t);
    CHECK(t.chosen.usable);
    CHECK(t.chosen.overhead_ns > 0 && t.chosen.overhead_ns < 100000);
    CHECK(t.chosen.resolution_ns > 0);
    CHECK(t.chosen.ticks_per_ns > 0);
    CHECK(t.candidates[PG_CLOCK_MONOTONIC_RAW].usable);
    CHECK(t.candidates[PG_CLOCK_TSC].usable || t.why);
}

/* The CPU's model, from the fake /proc as every other reading: x86's
 * "model name", an ARM board's "Model", none at all. */
static void cpu_model(void)
{
    char *root = fake_root(), *model;

    REQUIRE(root);
    put(root, "/proc/cpuinfo",
        "processor\t: 0\nmodel name\t: AMD EPYC 7B13\nflags\t: fpu\n\n"
        "processor\t: 1\nmodel name\t: AMD EPYC 7B13\n");
    model = pg_system_cpu_model(root);
    CHECK_STR(model, "AMD EPYC 7B13");
    free(model);
    put(root, "/proc/cpuinfo",
        "processor\t: 0\nBogoMIPS\t: 108.00\n\n"
        "Model\t\t: Raspberry Pi 4 Model B\n");
    model = pg_system_cpu_model(root);
    CHECK_STR(model, "Raspberry Pi 4 Model B");
    free(model);
    put(root, "/proc/cpuinfo", "processor\t: 0\n");
    CHECK(pg_system_cpu_model(root) == NULL);
    pg_rm_rf(root);
    free(root);
}

const pg_test pg_tests_system[] = {
    {"cpu_model", cpu_model},         {"noisy_machine", noisy_machine},
    {"quiet_machine", quiet_machine}, {"cpu_usage", cpu_usage},
    {"timer_choice", timer_choice},   PG_TESTS_END};
