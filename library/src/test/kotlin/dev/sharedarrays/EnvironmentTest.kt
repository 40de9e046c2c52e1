package dev.sharedarrays

import dev.sharedarrays.testing.ChildJvm
import dev.sharedarrays.testing.scratchDir
import io.kotest.core.spec.style.FunSpec
import io.kotest.datatest.withData
import io.kotest.matchers.shouldBe

/** The environment variables of DESIGN, each in a child JVM that has it set. */
class EnvironmentTest : FunSpec({
    data class Case(val env: Map<String, String>, val backend: String, val created: String)

    context("SHARED_ARRAYS_BACKEND wins over code; auto-detection follows SHARED_ARRAYS_SHM_MIN_FREE") {
        withData(
            mapOf(
                "no variables: shm" to Case(emptyMap(), "shm", "shm"),
                "SHARED_ARRAYS_BACKEND=memfd" to Case(mapOf("SHARED_ARRAYS_BACKEND" to "memfd"), "memfd", "memfd"),
                "SHARED_ARRAYS_BACKEND=FILE (any case)" to Case(mapOf("SHARED_ARRAYS_BACKEND" to "FILE"), "file", "file"),
                "SHARED_ARRAYS_SHM_MIN_FREE above the free space: memfd" to
                    Case(mapOf("SHARED_ARRAYS_SHM_MIN_FREE" to Long.MAX_VALUE.toString()), "memfd", "shm"),
            ),
        ) { c ->
            ChildJvm("backend", env = c.env).use { child ->
                child.expectLine("BACKEND ") shouldBe c.backend
                child.expectLine("CREATED ") shouldBe c.created
                child.waitForExit() shouldBe 0
            }
        }
    }

    test("a SHARED_ARRAYS_DIR every user may write to without the sticky bit: create refuses, naming it, its mode and the fix") {
        val dir = scratchDir("world-writable")
        fun chmod(mode: String) = ProcessBuilder("chmod", mode, dir.path).start().waitFor() shouldBe 0
        try {
            chmod("0777")
            ChildJvm("backend", env = mapOf("SHARED_ARRAYS_DIR" to dir.path)).use { child ->
                child.expectLine("ERROR ") shouldBe "SharedArrayException cannot create a shm array in $dir: $dir has mode 0777: " +
                    "every user may write to it and, without the sticky bit, delete or rename the arrays of others in it; " +
                    "chmod +t $dir (mode 1777, as /dev/shm has), or point SHARED_ARRAYS_DIR at a directory of yours with mode 0700"
            }
            chmod("1777")
            ChildJvm("backend", env = mapOf("SHARED_ARRAYS_DIR" to dir.path)).use { child ->
                child.expectLine("CREATED ") shouldBe "shm"
                child.waitForExit() shouldBe 0
            }
        } finally {
            dir.deleteRecursively()
        }
    }

    context("unknown values are errors that list the accepted ones") {
        withData(
            mapOf(
                "SHARED_ARRAYS_BACKEND=ram" to
                    "IllegalArgumentException SHARED_ARRAYS_BACKEND=ram: unknown backend 'ram'; accepted: shm, memfd, file, anonymous",
                "SHARED_ARRAYS_SHM_MIN_FREE=lots" to
                    "IllegalArgumentException SHARED_ARRAYS_SHM_MIN_FREE=lots is not a byte count; use a whole number >= 0, such as 67108864",
                "SHARED_ARRAYS_DIR=/nonexistent" to
                    "IllegalStateException SHARED_ARRAYS_DIR=/nonexistent is not a directory; point it at an existing directory",
            ).entries.associate { (setting, message) -> setting to (setting.substringBefore('=') to setting.substringAfter('=') to message) },
        ) { (variable, message) ->
            ChildJvm("backend", env = mapOf(variable)).use { child ->
                if (variable.first == "SHARED_ARRAYS_DIR") child.expectLine("BACKEND ") shouldBe "memfd"
                child.expectLine("ERROR ") shouldBe message
            }
        }
    }
})
