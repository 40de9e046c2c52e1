package dev.sharedarrays

import dev.sharedarrays.testing.ChildJvm
import dev.sharedarrays.testing.scratchDir
import io.kotest.core.spec.style.FunSpec
import io.kotest.matchers.shouldBe
import io.kotest.matchers.string.shouldContain
import io.kotest.matchers.string.shouldStartWith
import java.io.File
import java.util.concurrent.TimeUnit

/**
 * Plays a Docker container with a small /dev/shm: a 16 MiB tmpfs as SHARED_ARRAYS_DIR.
 * Creating more than fits is a clear exception at create, nothing is left, the JVM lives, and
 * auto-detection picks memfd. And the other limit a create meets: vm.max_map_count.
 */
class SmallShmTest : FunSpec({
    fun sh(vararg cmd: String): Pair<Int, String> {
        val p = ProcessBuilder(*cmd).redirectErrorStream(true).start()
        val out = p.inputStream.bufferedReader().readText()
        p.waitFor(60, TimeUnit.SECONDS)
        return p.exitValue() to out
    }

    test("a full shm directory fails at create with sizes and the fix; auto-detection picks memfd") {
        val mnt = scratchDir("tmpfs")
        val (rc, out) = sh("mount", "-t", "tmpfs", "-o", "size=16m,mode=0700", "tmpfs", mnt.absolutePath)
        if (rc != 0) {
            println("SKIPPED small-shm test: mounting a tmpfs is not permitted here: ${out.trim()}")
            mnt.deleteRecursively()
            return@test
        }
        try {
            ChildJvm("try-create", (32L shl 20).toString(), env = mapOf("SHARED_ARRAYS_DIR" to mnt.absolutePath)).use { c ->
                c.expectLine("BACKEND ") shouldBe "memfd"
                c.expectLine("ERROR ") shouldBe "InsufficientSpaceException ${mnt.absolutePath} has 16.0 MiB free, " +
                    "32.0 MiB requested; set SHARED_ARRAYS_BACKEND=memfd or enlarge ${mnt.absolutePath}"
                c.expectLine("AUTO ") shouldBe "memfd"
                c.waitForExit() shouldBe 0
            }
            File(mnt, ".").list()!!.toList() shouldBe emptyList()
            File(".").listFiles { f -> f.name.startsWith("hs_err_pid") }!!.toList() shouldBe emptyList()

            // space taken by someone else after the free-space check: posix_fallocate fails, not SIGBUS later
            File(mnt, "ballast").outputStream().use { it.write(ByteArray(14 shl 20)) }
            ChildJvm("try-create", (4L shl 20).toString(), env = mapOf("SHARED_ARRAYS_DIR" to mnt.absolutePath)).use { c ->
                c.expectLine("ERROR ") shouldBe "InsufficientSpaceException ${mnt.absolutePath} has 2.0 MiB free, " +
                    "4.0 MiB requested; set SHARED_ARRAYS_BACKEND=memfd or enlarge ${mnt.absolutePath}"
                c.waitForExit() shouldBe 0
            }
            File(mnt, ".").list()!!.toList() shouldBe listOf("ballast")
        } finally {
            sh("umount", mnt.absolutePath)
            mnt.deleteRecursively()
        }
    }

    test("at vm.max_map_count a create fails with mmap's ENOMEM and the fix, and the JVM lives") {
        val limit = File("/proc/sys/vm/max_map_count").readText().trim().toLong()
        if (limit > 262_144) {
            // using up a million mappings takes long and costs the kernel memory; the default is 65530
            println("SKIPPED map-count test: vm.max_map_count is $limit here")
            return@test
        }
        for (backend in listOf("anonymous", "memfd")) {
            // a small fixed heap: the JVM itself needs no new mapping for it meanwhile
            ChildJvm("map-exhaust", backend, "300", jvmArgs = listOf("-Xms64m", "-Xmx64m")).use { c ->
                println("map-exhaust $backend: ${c.expectLine("MAPS ")}, created ${c.expectLine("CREATED ", 120)}")
                val failed = c.expectLine("FAILED ")
                failed shouldStartWith "NativeCallException mmap("
                failed shouldContain "failed: errno 12 (Cannot allocate memory): this process has reached vm.max_map_count"
                failed shouldContain "raise vm.max_map_count (sysctl -w vm.max_map_count=262144)"
                c.waitForExit() shouldBe 0
            }
        }
        File(".").listFiles { f -> f.name.startsWith("hs_err_pid") }!!.toList() shouldBe emptyList()
    }
})
