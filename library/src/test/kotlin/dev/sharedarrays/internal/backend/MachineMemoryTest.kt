package dev.sharedarrays.internal.backend

import io.kotest.core.spec.style.FunSpec
import io.kotest.matchers.shouldBe
import java.nio.file.Files
import java.nio.file.Path

/** The cgroup limit on made-up cgroup trees (v2 and v1): a parent's limit holds for the groups under it. */
class MachineMemoryTest : FunSpec({
    val gib = 1L shl 30

    fun tree(vararg limits: Pair<String, String>, unified: Boolean = true, file: String = "memory.max"): Path {
        val root = Files.createTempDirectory("cgroup-tree")
        if (unified) {
            Files.writeString(root.resolve("cgroup.controllers"), "cpu memory pids\n")
        }
        for ((group, max) in limits) {
            val dir = Files.createDirectories(root.resolve(group))
            Files.writeString(dir.resolve(file), max + "\n")
        }
        return root
    }

    fun Path.deleteTree() = Files.walk(this).use { s -> s.sorted(Comparator.reverseOrder()).forEach(Files::delete) }

    fun limitOf(root: Path, cgroupFile: String): Long = try {
        MachineMemory.cgroupLimit(cgroupFile, root)
    } finally {
        root.deleteTree()
    }

    test("a parent's limit holds for a group without one of its own") {
        val root = tree("a" to "max", "a/b" to "${gib}", "a/b/c" to "max")
        limitOf(root, "0::/a/b/c\n") shouldBe gib
    }

    test("the lowest limit on the way up wins, wherever it is") {
        limitOf(tree("a" to "${4 * gib}", "a/b" to "${gib}", "a/b/c" to "${2 * gib}"), "0::/a/b/c\n") shouldBe gib
        limitOf(tree("a" to "${4 * gib}", "a/b" to "${2 * gib}", "a/b/c" to "${gib / 2}"), "0::/a/b/c\n") shouldBe gib / 2
    }

    test("groups beside the path do not count") {
        val root = tree("a/b" to "max", "a/other" to "${gib}")
        limitOf(root, "0::/a/b\n") shouldBe 0
    }

    test("a container's own root group (0::/) is read too") {
        limitOf(tree("" to "${2 * gib}"), "0::/\n") shouldBe 2 * gib
    }

    test("v1 (or v1 memory beside a v2 tree, as on the build machine): memory.limit_in_bytes of the memory group and its parents") {
        val unlimited = "9223372036854771712"
        fun v1(vararg limits: Pair<String, String>) = tree(*limits, unified = false, file = "memory.limit_in_bytes")
        val lines = "4:memory:/api/job\n3:cpu,cpuacct:/api\n0::/\n"
        limitOf(v1("memory" to unlimited, "memory/api" to "${gib}", "memory/api/job" to unlimited), lines) shouldBe gib
        limitOf(v1("memory" to unlimited, "memory/api" to unlimited, "memory/api/job" to unlimited), lines) shouldBe 0
        // in a container the path printed is the host's; the container's group is mounted as the root
        limitOf(v1("memory" to "${2 * gib}"), "4:memory:/host/path\n") shouldBe 2 * gib
    }
})
