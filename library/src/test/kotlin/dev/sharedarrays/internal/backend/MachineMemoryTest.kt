package dev.sharedarrays.internal.backend

import io.kotest.core.spec.style.FunSpec
import io.kotest.matchers.shouldBe
import java.nio.file.Files
import java.nio.file.Path

/** The cgroup v2 limit on made-up cgroup trees: a parent's memory.max holds for the groups under it. */
class MachineMemoryTest : FunSpec({
    val gib = 1L shl 30

    fun tree(vararg limits: Pair<String, String>, unified: Boolean = true): Path {
        val root = Files.createTempDirectory("cgroup-tree")
        if (unified) {
            Files.writeString(root.resolve("cgroup.controllers"), "cpu memory pids\n")
        }
        for ((group, max) in limits) {
            val dir = Files.createDirectories(root.resolve(group))
            Files.writeString(dir.resolve("memory.max"), max + "\n")
        }
        return root
    }

    fun Path.deleteTree() = Files.walk(this).use { s -> s.sorted(Comparator.reverseOrder()).forEach(Files::delete) }

    fun limitOf(root: Path, cgroupFile: String): Long = try {
        MachineMemory.cgroupV2Max(cgroupFile, root)
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

    test("no v2 hierarchy (v1 or hybrid, as on the build machine): -1, so v1's limit is read") {
        limitOf(tree(unified = false), "4:memory:/x\n0::/\n") shouldBe -1
        limitOf(tree(), "4:memory:/x\n") shouldBe -1
    }
})
