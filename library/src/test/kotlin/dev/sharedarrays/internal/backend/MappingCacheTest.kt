package dev.sharedarrays.internal.backend

import io.kotest.core.spec.style.FunSpec
import io.kotest.matchers.shouldBe

/** The freed-mapping cache on made-up addresses: cuts, joins and what it unmaps (nothing is mapped). */
class MappingCacheTest : FunSpec({
    val mib = 1L shl 20
    val base = 1L shl 40

    fun cache(unmapped: MutableList<Pair<Long, Long>>) =
        MappingCache(64L shl 10, 256L shl 10) { at, length -> unmapped.add(at to length) }

    test("two freed halves of a mapping join: a request of the whole size gets its start") {
        val unmapped = mutableListOf<Pair<Long, Long>>()
        val c = cache(unmapped)
        c.put(base, 128 * mib, 1L shl 40)
        c.take(64 * mib)!!.toList() shouldBe listOf(base, 64 * mib)
        c.take(64 * mib)!!.toList() shouldBe listOf(base + 64 * mib, 64 * mib)
        c.bytes() shouldBe 0
        c.put(base + 64 * mib, 64 * mib, 1L shl 40)
        c.put(base, 64 * mib, 1L shl 40)
        c.take(128 * mib)!!.toList() shouldBe listOf(base, 128 * mib)
        unmapped shouldBe emptyList()
    }

    test("a piece joins the cached ones on both sides; apart ones stay apart") {
        val c = cache(mutableListOf())
        c.put(base, 16 * mib, 1L shl 40)
        c.put(base + 32 * mib, 16 * mib, 1L shl 40)
        c.put(base + 100 * mib, 16 * mib, 1L shl 40)
        c.take(48 * mib) shouldBe null // three pieces of 16: none of 48 yet
        c.put(base + 16 * mib, 16 * mib, 1L shl 40) // fills the gap: 48 from base
        c.bytes() shouldBe 64 * mib
        c.take(48 * mib)!!.toList() shouldBe listOf(base, 48 * mib)
        c.take(16 * mib)!!.toList() shouldBe listOf(base + 100 * mib, 16 * mib)
    }

    test("a cut leaves the rest cached unless it is too small for a mapping") {
        val c = cache(mutableListOf())
        c.put(base, 64 * mib, 1L shl 40)
        c.take(16 * mib)!!.toList() shouldBe listOf(base, 16 * mib)
        c.bytes() shouldBe 48 * mib
        c.take(48 * mib - (128L shl 10))!!.toList() shouldBe listOf(base + 16 * mib, 48 * mib) // a 128 KiB rest goes along
        c.bytes() shouldBe 0
    }

    test("past its size it unmaps the excess from the end of the smallest piece, keeping the rest") {
        val unmapped = mutableListOf<Pair<Long, Long>>()
        val c = cache(unmapped)
        c.put(base, 128 * mib, 200 * mib)
        c.put(base + 500 * mib, 32 * mib, 200 * mib)
        c.put(base + 900 * mib, 64 * mib, 200 * mib) // 224 MiB: 24 over, cut from the 32 MiB piece
        unmapped shouldBe listOf((base + 500 * mib + 8 * mib) to 24 * mib)
        c.bytes() shouldBe 200 * mib
        c.put(base + 1200 * mib, 16 * mib, 200 * mib) // 16 over: all of the 8 MiB piece, then the end of the 16
        unmapped.drop(1) shouldBe listOf((base + 500 * mib) to 8 * mib, (base + 1208 * mib) to 8 * mib)
        c.bytes() shouldBe 200 * mib
        c.take(128 * mib)!!.toList() shouldBe listOf(base, 128 * mib)
        c.take(8 * mib)!!.toList() shouldBe listOf(base + 1200 * mib, 8 * mib)
    }

    test("trimming unmaps after leaving the lock: another thread's allocation does not wait for munmap") {
        lateinit var c: MappingCache
        val others = mutableListOf<Boolean>()
        c = MappingCache(64L shl 10, 256L shl 10) { _, _ ->
            val other = Thread {
                val fits = c.fits(mib)
                synchronized(others) { others.add(fits) }
            }
            other.start()
            other.join(5_000)
            synchronized(others) { others.add(!other.isAlive) }
        }
        c.put(base, 16 * mib, 1L shl 40)
        c.put(base + 64 * mib, 16 * mib, 16 * mib)
        // the unmapper ran once, and in it the other thread got through the cache's lock
        synchronized(others) { others.toList() } shouldBe listOf(true, true)
    }
})
