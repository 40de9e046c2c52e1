package dev.sharedarrays.cli

import dev.sharedarrays.testing.ChildJvm
import dev.sharedarrays.testing.scratchDir
import io.kotest.core.spec.style.FunSpec
import io.kotest.matchers.shouldBe
import io.kotest.matchers.string.shouldContain
import io.kotest.matchers.string.shouldNotContain
import io.kotest.matchers.string.shouldStartWith
import java.io.File
import java.util.concurrent.TimeUnit

/** `sharedarrays doctor`: every check's line from a child JVM, and each check's reading of what it finds. */
class DoctorTest : FunSpec({
    val names = listOf(Doctor.SHM, Doctor.REMOVE_IPC, Doctor.HUGE_PAGES, Doctor.FD_LIMIT, Doctor.MAP_COUNT, Doctor.MEMFD)

    /** Runs doctor in a child JVM: its exit status and its line per check name. */
    fun doctor(env: Map<String, String> = emptyMap()): Pair<Int, Map<String, String>> = ChildJvm("cli", "doctor", env = env).use { c ->
        val code = c.expectLine("EXIT ").toInt()
        val lines = c.output().lines()
        println(lines.filter { it.isNotBlank() && !it.startsWith("EXIT") }.joinToString("\n"))
        code to names.associateWith { name ->
            lines.singleOrNull { Regex("^(ok|warn|FAIL) +" + Regex.escape(name) + " +\\S.*; fix: \\S.*").matches(it) }
                ?: throw AssertionError("no line for the check '$name' in:\n${c.output()}")
        }
    }

    fun sh(vararg cmd: String): Pair<Int, String> {
        val p = ProcessBuilder(*cmd).redirectErrorStream(true).start()
        val out = p.inputStream.bufferedReader().readText()
        p.waitFor(60, TimeUnit.SECONDS)
        return p.exitValue() to out
    }

    test("doctor prints one line per check with its finding and fix; exit 1 only when a check fails") {
        val (code, lines) = doctor()
        code shouldBe if (lines.values.any { it.startsWith("FAIL") }) 1 else 0
        lines.getValue(Doctor.SHM) shouldContain "free"
        lines.getValue(Doctor.FD_LIMIT) shouldContain "each open array holds one"
        lines.getValue(Doctor.MAP_COUNT) shouldContain "vm.max_map_count=" + File("/proc/sys/vm/max_map_count").readText().trim()
        lines.getValue(Doctor.MEMFD) shouldStartWith "ok" // memfd works wherever this suite runs (the memfd tests need it)

        val (missing, missingLines) = doctor(mapOf("SHARED_ARRAYS_DIR" to "/nonexistent-shm-dir"))
        missing shouldBe 1
        missingLines.getValue(Doctor.SHM) shouldStartWith "FAIL"
        missingLines.getValue(Doctor.SHM) shouldContain "/nonexistent-shm-dir is not a directory"
    }

    test("a shm directory every user may write to without the sticky bit is a warning whose fix is chmod +t") {
        val dir = scratchDir("doctor-777")
        try {
            sh("chmod", "0777", dir.path).first shouldBe 0
            val shm = doctor(mapOf("SHARED_ARRAYS_DIR" to dir.path)).second.getValue(Doctor.SHM)
            shm shouldStartWith "warn"
            shm shouldContain "$dir has mode 0777: every user may write to it and, without the sticky bit, delete or rename the arrays of others"
            shm shouldContain "fix: chmod +t $dir"
            sh("chmod", "1777", dir.path).first shouldBe 0
            doctor(mapOf("SHARED_ARRAYS_DIR" to dir.path)).second.getValue(Doctor.SHM) shouldNotContain "sticky"
        } finally {
            dir.deleteRecursively()
        }
    }

    test("a 16 MiB shm directory (Docker's small /dev/shm) is a warning that names --shm-size") {
        val mnt = scratchDir("doctor-tmpfs")
        val (rc, out) = sh("mount", "-t", "tmpfs", "-o", "size=16m,mode=0700", "tmpfs", mnt.absolutePath)
        if (rc != 0) {
            println("SKIPPED small-shm doctor test: mounting a tmpfs is not permitted here: ${out.trim()}")
            mnt.deleteRecursively()
            return@test
        }
        try {
            val (code, lines) = doctor(mapOf("SHARED_ARRAYS_DIR" to mnt.absolutePath))
            code shouldBe 0
            val shm = lines.getValue(Doctor.SHM)
            shm shouldStartWith "warn"
            shm shouldContain "${mnt.absolutePath} (tmpfs): 16.0 MiB, 16.0 MiB free: less than 1 GiB"
            shm shouldContain "--shm-size"
        } finally {
            sh("umount", mnt.absolutePath)
            mnt.deleteRecursively()
        }
    }

    test("a shm directory on a tmpfs mounted huge=within_size: doctor names the mount and says large arrays get 2 MiB pages") {
        val mnt = scratchDir("doctor-huge")
        val (rc, out) = sh("mount", "-t", "tmpfs", "-o", "size=64m,mode=0700,huge=within_size", "tmpfs", mnt.absolutePath)
        if (rc != 0) {
            println("SKIPPED huge-tmpfs doctor test: mounting a tmpfs is not permitted here: ${out.trim()}")
            mnt.deleteRecursively()
            return@test
        }
        try {
            val line = doctor(mapOf("SHARED_ARRAYS_DIR" to mnt.absolutePath)).second.getValue(Doctor.HUGE_PAGES)
            line shouldStartWith "ok"
            line shouldContain "shm directory on ${mnt.canonicalPath} (tmpfs huge=within_size)"
            line shouldContain "get 2 MiB pages"
            doctor().second.getValue(Doctor.HUGE_PAGES) shouldNotContain mnt.canonicalPath
        } finally {
            sh("umount", mnt.absolutePath)
            mnt.deleteRecursively()
        }
    }

    test("RemoveIPC: yes by default; logind.conf, then drop-ins by file name (the same name in /etc replaces /usr/lib); only [Login]") {
        val root = scratchDir("logind")
        fun write(path: String, text: String) = File(root, path).apply { parentFile.mkdirs(); writeText(text) }
        try {
            Doctor.removeIpcSetting(root.toPath()) shouldBe Doctor.RemoveIpc(true, "the default")
            write("etc/systemd/logind.conf", "[Login]\n#RemoveIPC=no\n;RemoveIPC=no\n[Other]\nRemoveIPC=no\n")
            Doctor.removeIpcSetting(root.toPath()).removes() shouldBe true
            write("etc/systemd/logind.conf", "[Login]\nKillUserProcesses=no\n RemoveIPC = no \n")
            Doctor.removeIpcSetting(root.toPath()) shouldBe Doctor.RemoveIpc(false, "$root/etc/systemd/logind.conf")
            val vendor = write("usr/lib/systemd/logind.conf.d/50-vendor.conf", "[Login]\nRemoveIPC=yes\n")
            Doctor.removeIpcSetting(root.toPath()) shouldBe Doctor.RemoveIpc(true, vendor.path)
            val mine = write("etc/systemd/logind.conf.d/50-vendor.conf", "[Login]\nRemoveIPC=off\n")
            Doctor.removeIpcSetting(root.toPath()) shouldBe Doctor.RemoveIpc(false, mine.path)
            val later = write("run/systemd/logind.conf.d/90-later.conf", "[Login]\nRemoveIPC=true\n")
            write("etc/systemd/logind.conf.d/notes.txt", "[Login]\nRemoveIPC=no\n")
            Doctor.removeIpcSetting(root.toPath()) shouldBe Doctor.RemoveIpc(true, later.path)

            // systemd not running: nothing to fear; running: a regular user is warned, root and system users are spared
            Doctor.removeIpc(root.toPath(), 1000).status() shouldBe Doctor.Status.OK
            File(root, "run/systemd/system").mkdirs()
            val regular = Doctor.removeIpc(root.toPath(), 1000)
            regular.status() shouldBe Doctor.Status.WARN
            regular.finding() shouldContain "deletes all its files in /dev/shm"
            regular.fix() shouldContain "RemoveIPC=no"
            Doctor.removeIpc(root.toPath(), 0).status() shouldBe Doctor.Status.OK
            Doctor.removeIpc(root.toPath(), 999).status() shouldBe Doctor.Status.OK
            later.delete()
            Doctor.removeIpc(root.toPath(), 1000).status() shouldBe Doctor.Status.OK
        } finally {
            root.deleteRecursively()
        }
    }

    test("shmem huge pages: the shm directory's tmpfs huge= option and memfd's shmem_enabled; always/force warn (2 MiB per small array), within_size is the way; a low fd limit warns") {
        val mounts = "proc /proc proc rw,nosuid 0 0\n" +
            "tmpfs /dev/shm tmpfs rw,relatime,size=24684084k 0 0\n" +
            "tmpfs /mnt/sa\\040huge tmpfs rw,relatime,size=4194304k,huge=within_size 0 0\n" +
            "tmpfs /mnt/sa tmpfs rw,huge=always 0 0\n" +
            "/dev/vda / ext4 rw 0 0\n" +
            "tmpfs /dev/shm tmpfs rw,huge=advise 0 0\n"
        Doctor.mountOf("/mnt/sa huge/x", mounts) shouldBe Doctor.Mount("/mnt/sa huge", "tmpfs", listOf("rw", "relatime", "size=4194304k", "huge=within_size"))
        Doctor.mountOf("/mnt/sa", mounts)!!.huge() shouldBe "always"
        Doctor.mountOf("/mnt/sample", mounts)!!.point() shouldBe "/" // a prefix of the name is not a parent
        Doctor.mountOf("/dev/shm", mounts)!!.huge() shouldBe "advise" // the later mount at one point hides the earlier
        Doctor.mountOf("/home/x", mounts)!!.type() shouldBe "ext4"
        Doctor.mountOf("/x", null) shouldBe null

        val never = "always within_size advise [never] deny force\n"
        val devShm = Doctor.mountOf("/dev/shm", "tmpfs /dev/shm tmpfs rw,relatime 0 0\n")
        val small = Doctor.hugePages(never, devShm)
        small.status() shouldBe Doctor.Status.OK
        small.finding() shouldContain "shm directory on /dev/shm (tmpfs huge=never), memfd: shmem_enabled=never: shm arrays are in 4 KiB pages"
        small.fix() shouldContain "mount -t tmpfs -o huge=within_size"
        small.fix() shouldContain "SHARED_ARRAYS_DIR=/mnt/sa-huge"
        val within = Doctor.hugePages(never, Doctor.mountOf("/mnt/sa huge", mounts))
        within.status() shouldBe Doctor.Status.OK
        within.finding() shouldContain "(tmpfs huge=within_size)"
        within.finding() shouldContain "get 2 MiB pages"
        within.fix() shouldBe "none needed"
        val always = Doctor.hugePages(never, Doctor.mountOf("/mnt/sa", mounts))
        always.status() shouldBe Doctor.Status.WARN
        always.finding() shouldContain "shm arrays are backed by 2 MiB pages"
        always.fix() shouldContain "mount -o remount,huge=within_size /mnt/sa;"
        Doctor.hugePages(never, Doctor.mountOf("/dev/shm", mounts)).finding() shouldContain "4 KiB pages" // advise: allocated before any advice
        Doctor.hugePages("[always] within_size advise never deny force\n", devShm).status() shouldBe Doctor.Status.WARN
        val force = Doctor.hugePages("always within_size advise never deny [force]\n", devShm)
        force.finding() shouldContain "(tmpfs huge=always)"
        force.finding() shouldContain "2 MiB"
        Doctor.hugePages("always within_size advise never [deny] force\n", Doctor.mountOf("/mnt/sa", mounts)).status() shouldBe Doctor.Status.OK
        Doctor.hugePages("always [within_size] advise never deny force\n", devShm).status() shouldBe Doctor.Status.OK
        Doctor.hugePages(null, null).status() shouldBe Doctor.Status.OK
        Doctor.hugePages(null, Doctor.mountOf("/home/x", mounts)).finding() shouldContain "(ext4)"

        fun limits(soft: String, hard: String) = "Limit                     Soft Limit           Hard Limit           Units     \n" +
            "Max open files            %-20s %-20s files     \n".format(soft, hard)
        Doctor.fdLimit(limits("1024", "1024")).status() shouldBe Doctor.Status.WARN
        Doctor.fdLimit(limits("1024", "1024")).finding() shouldStartWith "this JVM may open 1024 descriptors (hard limit 1024"
        Doctor.fdLimit(limits("20000", "unlimited")).status() shouldBe Doctor.Status.OK
        Doctor.fdLimit(limits("unlimited", "unlimited")).status() shouldBe Doctor.Status.OK
        Doctor.fdLimit(null).status() shouldBe Doctor.Status.WARN
    }
})
