package dev.sharedarrays.testing

import dev.sharedarrays.Backend
import dev.sharedarrays.CreateOptions
import dev.sharedarrays.F64
import dev.sharedarrays.SharedArrays
import dev.sharedarrays.SharedNDArray
import dev.sharedarrays.U8
import dev.sharedarrays.internal.backend.Backends
import java.lang.foreign.FunctionDescriptor
import java.lang.foreign.Linker
import java.lang.foreign.MemorySegment
import java.lang.foreign.ValueLayout.ADDRESS
import java.lang.foreign.ValueLayout.JAVA_INT
import java.lang.foreign.ValueLayout.JAVA_LONG

/**
 * Child commands for the hardening tests:
 *  - `create-loop <elements>`: print `LOOPING`, then create and close f64 shm arrays of that many
 *     elements until killed (a SIGKILL at a random moment leaves a create's temporary file)
 *  - `map-exhaust <backend> <maps to leave>`: use up this process's mappings (vm.max_map_count)
 *     with PROT_NONE pages split off one reservation until about that many are left, then
 *     create 1-element arrays of the backend until one fails; print `CREATED <n>` and
 *     `FAILED <class> <message>` (or `NO-FAILURE` after 1,000,000)
 *  - `drop-locals <count> <MiB>`: make and drop that many process-local arrays of that size (never
 *     touched, so no memory is used), then print `COLLECTIONS <the library's>` and `MS <elapsed>`
 *  - `local-pages <bytes>`: make one process-local array of that many bytes (not zeroed, never
 *     written) and print `PAGE-SIZE <bytes>`, `THP-ALWAYS <true|false>` (whether any huge page size
 *     is on for every mapping: a fault may then bring in the pages around it) and `PAGES ` and, for
 *     each page of its mapping (64 KiB multiples), 1 if it is in memory (mincore), else 0
 *  - `every-other <n> <index>...`: add 3 in place to every other element of a process-local u8
 *     array of n zeros, then print `VALUES ` and, for each index, the element there and the one after
 */
object HardeningCommands {
    fun run(args: Array<String>): Boolean {
        when (args[0]) {
            "create-loop" -> {
                println("LOOPING")
                System.out.flush()
                val opts = CreateOptions.defaults().backend(Backend.SHM)
                while (true) SharedArrays.create(F64.TYPE, longArrayOf(args[1].toLong()), opts).close()
            }
            "map-exhaust" -> mapExhaust(Backend.parse(args[1]), args[2].toInt())
            "drop-locals" -> {
                val start = System.nanoTime()
                repeat(args[1].toInt()) { Backends.createLocal(U8.TYPE, longArrayOf(args[2].toLong() shl 20), false) }
                println("COLLECTIONS ${Backends.localCollections()}")
                println("MS ${(System.nanoTime() - start) / 1_000_000}")
            }
            "local-pages" -> localPages(args[1].toLong())
            "every-other" -> {
                val n = args[1].toLong()
                dev.sharedarrays.NDArrays.zeros(U8.TYPE, n).use { a ->
                    a.slice(0, 0, n, 2).add(3L)
                    println("VALUES " + args.drop(2).joinToString(" ") { "${a.getLong(it.toLong())} ${a.getLong(it.toLong() + 1)}" })
                }
            }
            else -> return false
        }
        return true
    }

    private fun localPages(size: Long) {
        val linker = Linker.nativeLinker()
        val mincore = linker.downcallHandle(linker.defaultLookup().find("mincore").orElseThrow(),
            FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_LONG, ADDRESS))
        val sysconf = linker.downcallHandle(linker.defaultLookup().find("sysconf").orElseThrow(), FunctionDescriptor.of(JAVA_LONG, JAVA_INT))
        val pageSize = sysconf.invokeWithArguments(30) as Long // _SC_PAGESIZE
        val thp = java.io.File("/sys/kernel/mm/transparent_hugepage")
        val top = thp.resolve("enabled").takeIf { it.exists() }?.readText()?.contains("[always]") ?: false
        val sizes = thp.listFiles { f -> f.name.startsWith("hugepages-") }.orEmpty()
            .mapNotNull { it.resolve("enabled").takeIf { e -> e.exists() }?.readText() }
        println("PAGE-SIZE $pageSize")
        println("THP-ALWAYS ${top || sizes.any { it.contains("[always]") || top && it.contains("[inherit]") }}")
        val a = Backends.createLocal(U8.TYPE, longArrayOf(size), false)
        val length = (size + 65535) / 65536 * 65536 // LocalMemory's grain
        val pages = (length / pageSize).toInt()
        java.lang.foreign.Arena.ofConfined().use { arena ->
            val vec = arena.allocate(pages.toLong())
            val rc = mincore.invokeWithArguments(MemorySegment.ofAddress(a.data().address()), length, vec) as Int
            check(rc == 0) { "mincore returned $rc" }
            println("PAGES " + (0 until pages).joinToString("") { if (vec.get(java.lang.foreign.ValueLayout.JAVA_BYTE, it.toLong()).toInt() and 1 != 0) "1" else "0" })
        }
        java.lang.ref.Reference.reachabilityFence(a)
    }

    private fun mapExhaust(backend: Backend, leave: Int) {
        val linker = Linker.nativeLinker()
        val lookup = linker.defaultLookup()
        val mmap = linker.downcallHandle(lookup.find("mmap").orElseThrow(),
            FunctionDescriptor.of(ADDRESS, ADDRESS, JAVA_LONG, JAVA_INT, JAVA_INT, JAVA_INT, JAVA_LONG))
        val mprotect = linker.downcallHandle(lookup.find("mprotect").orElseThrow(),
            FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_LONG, JAVA_INT))
        // as in a program that has used arrays before: what a first create and close load is loaded
        SharedArrays.create(F64.TYPE, longArrayOf(1), CreateOptions.defaults().backend(backend)).close()
        val limit = java.io.File("/proc/sys/vm/max_map_count").readText().trim().toInt()
        val used = java.io.File("/proc/self/maps").readLines().size
        val pages = (limit - used - leave).coerceAtLeast(2).toLong() // each mprotect below adds 2 mappings
        // one reservation, no memory behind it; every other page made readable splits it into one more mapping
        val base = (mmap.invokeWithArguments(MemorySegment.NULL, pages * 4096, 0, 0x22, -1, 0L) as MemorySegment).address()
        check(base != -1L) { "mmap of the reservation failed" }
        for (i in 1 until pages step 2) {
            if (mprotect.invokeWithArguments(MemorySegment.ofAddress(base + i * 4096), 4096L, 1) as Int != 0) break
        }
        println("MAPS ${java.io.File("/proc/self/maps").readLines().size} of $limit")
        System.out.flush()
        val held = ArrayList<SharedNDArray<F64>>()
        val opts = CreateOptions.defaults().backend(backend)
        val failure = try {
            while (held.size < 1_000_000) held += SharedArrays.create(F64.TYPE, longArrayOf(1), opts)
            null
        } catch (e: Exception) {
            e
        }
        val created = held.size
        // mappings back before this process prints anything (its own first string building may need some)
        held.forEach { it.close() }
        println("CREATED $created")
        println(if (failure == null) "NO-FAILURE" else "FAILED ${failure.javaClass.simpleName} ${failure.message}")
        System.out.flush()
    }
}
