package dev.sharedarrays

import dev.sharedarrays.internal.render.ColorScale
import dev.sharedarrays.internal.render.Picture
import dev.sharedarrays.internal.render.Pictures
import io.kotest.assertions.throwables.shouldThrow
import io.kotest.assertions.withClue
import io.kotest.core.spec.style.FunSpec
import io.kotest.matchers.collections.shouldContain
import io.kotest.matchers.ints.shouldBeLessThanOrEqual
import io.kotest.matchers.shouldBe
import io.kotest.matchers.shouldNotBe
import io.kotest.matchers.string.shouldContain
import java.awt.image.BufferedImage
import java.io.ByteArrayInputStream
import java.nio.file.Files
import javax.imageio.ImageIO

/**
 * toPng: the PNG is decoded back with ImageIO and its pixels are checked where the picture's
 * geometry says an element is drawn.
 */
class RenderingTest : FunSpec({
    val anon = CreateOptions.defaults().backend(Backend.ANONYMOUS)

    fun decode(a: SharedNDArray<*>): BufferedImage = ImageIO.read(ByteArrayInputStream(a.toPng()))!!
    fun rgb(img: BufferedImage, x: Int, y: Int) = img.getRGB(x, y) and 0xffffff
    fun cell(p: Picture, img: BufferedImage, r: Int, c: Int) =
        rgb(img, p.plotX + c * p.cellWidth + p.cellWidth / 2, p.plotY + r * p.cellHeight + p.cellHeight / 2)
    fun hex(v: Int) = "%06x".format(v)

    test("a 2-D heat map: the maximum is the hot end of the scale, the minimum the cold end, the bar spans both") {
        val a = NDArrays.arange(12).reshape(3, 4).astype(F64.TYPE)
        a.setDouble(longArrayOf(1, 1), 100.0)
        val p = picture(a)
        val img = decode(a)
        img.width shouldBe p.image.width
        hex(cell(p, img, 1, 1)) shouldBe hex(ColorScale.HIGH_RGB)
        hex(cell(p, img, 0, 0)) shouldBe hex(ColorScale.LOW_RGB)
        // 11 of 100 is low on the scale: not the hot end, nearer the cold one
        hex(cell(p, img, 2, 3)) shouldBe hex(ColorScale.rgb(0.11))
        val barX = p.plotX + p.plotWidth + 12 + 8
        hex(rgb(img, barX, p.plotY)) shouldBe hex(ColorScale.HIGH_RGB)
        p.caption[0] shouldBe "F64 (3, 4)"
    }

    test("every element type draws: the one nonzero element is hot (white for Bool), the others cold (black)") {
        for (t in DType.all()) {
            SharedArrays.createAny(t, longArrayOf(5, 7), anon).use { a ->
                a.setLong(longArrayOf(3, 2), 1)
                val p = picture(a)
                val img = decode(a)
                withClue(t.name()) {
                    p.caption[0] shouldContain t.name()
                    if (t.isBool) {
                        hex(cell(p, img, 3, 2)) shouldBe "ffffff"
                        hex(cell(p, img, 0, 0)) shouldBe "000000"
                    } else {
                        hex(cell(p, img, 3, 2)) shouldBe hex(ColorScale.HIGH_RGB)
                        hex(cell(p, img, 4, 6)) shouldBe hex(ColorScale.LOW_RGB)
                    }
                    decode(a.select(0, 3)).width shouldNotBe 0 // 1-D: a line plot, or a strip for Bool
                }
            }
        }
    }

    test("unsigned 64-bit values above 2^63 are the high end, not negative") {
        SharedArrays.create(U64.TYPE, longArrayOf(2, 2), anon).use { a ->
            a.setLong(0, -1L) // 2^64 - 1
            a.setLong(1, 5)
            val p = picture(a)
            val img = decode(a)
            hex(cell(p, img, 0, 0)) shouldBe hex(ColorScale.HIGH_RGB)
            hex(cell(p, img, 0, 1)) shouldBe hex(ColorScale.LOW_RGB)
        }
    }

    test("a Bool mask is white exactly where it is true") {
        val x = NDArrays.random(7).uniform(30, 40)
        val m = x.gt(0.5)
        val truth = m.toBooleanArray()
        val p = picture(m)
        val img = decode(m)
        for (r in 0 until 30) for (c in 0 until 40) {
            hex(cell(p, img, r, c)) shouldBe (if (truth[r * 40 + c]) "ffffff" else "000000")
        }
        p.caption[0] shouldContain "${truth.count { it }} of 1,200 true (white)"
    }

    test("NaN is grey and counted; the scale is the finite values'") {
        val a = NDArrays.linspace(0.0, 1.0, 6).reshape(2, 3)
        a.setDouble(longArrayOf(0, 2), Double.NaN)
        val p = picture(a)
        val img = decode(a)
        hex(cell(p, img, 0, 2)) shouldBe hex(ColorScale.NAN_RGB)
        hex(cell(p, img, 1, 2)) shouldBe hex(ColorScale.HIGH_RGB)
        hex(cell(p, img, 0, 0)) shouldBe hex(ColorScale.LOW_RGB)
        p.caption[0] shouldContain "1 NaN (grey)"
    }

    test("a constant array, and one of NaN only, draw without dividing by zero") {
        val c = NDArrays.full(F64.TYPE, 3.0, 4, 4)
        val p = picture(c)
        hex(cell(p, decode(c), 2, 2)) shouldBe hex(ColorScale.rgb(0.5))
        val n = NDArrays.full(F32.TYPE, Double.NaN, 3, 3)
        hex(cell(picture(n), decode(n), 1, 1)) shouldBe hex(ColorScale.NAN_RGB)
        val line = NDArrays.full(I32.TYPE, 7L, 10)
        decode(line).width shouldNotBe 0
    }

    test("a large array is downsampled to at most 800 cells a side, block means, and the caption says so") {
        val a = NDArrays.zeros(F32.TYPE, 2000, 3000)
        a.view(Slice.of(3, 6), Slice.of(4, 8)).fill(1.0) // exactly the block of cell (1, 1)
        a.view(Slice.of(6, 9), Slice.of(0, 2)).fill(1.0) // half of the block of cell (2, 0)
        val p = picture(a)
        p.caption shouldContain "downsampled 2000x3000 -> 667x750 (mean of each 3x4 block; colours span the means)"
        p.caption shouldContain "elements from 0 to 1"
        (p.plotWidth / p.cellWidth) shouldBe 750
        p.image.width shouldBeLessThanOrEqual 1000
        val img = decode(a)
        hex(cell(p, img, 1, 1)) shouldBe hex(ColorScale.HIGH_RGB)
        hex(cell(p, img, 2, 0)) shouldBe hex(ColorScale.rgb(0.5))
        hex(cell(p, img, 0, 0)) shouldBe hex(ColorScale.LOW_RGB)
    }

    test("a noisy downsampled array: the colour bar spans the block means the pixels show, not the raw extremes") {
        // uniform noise in [0, 1): blocks of 4x4 elements average to about 0.3..0.7, never near 0 or 1
        val a = NDArrays.random(3).uniform(3200, 3200)
        val p = picture(a)
        val img = decode(a)
        val seen = HashSet<Int>()
        for (r in 0 until p.plotHeight / p.cellHeight) for (c in 0 until p.plotWidth / p.cellWidth) seen += cell(p, img, r, c)
        // the lowest and the highest block mean are the ends of the scale (drawn against the raw 0..1, none would be)
        withClue("${seen.size} colours") {
            seen shouldContain ColorScale.LOW_RGB
            seen shouldContain ColorScale.HIGH_RGB
        }
        p.caption shouldContain "downsampled 3200x3200 -> 800x800 (mean of each 4x4 block; colours span the means)"
        withClue(p.caption) { p.caption.any { it.startsWith("elements from ") && it.endsWith(" to 1") } shouldBe true }
    }

    test("a 1-D array is a line plot: the maximum on the top row, the minimum on the bottom, NaN a gap") {
        val a = NDArrays.zeros(F64.TYPE, 50)
        a.setDouble(17, 5.0)
        a.setDouble(40, -1.0)
        a.setDouble(30, Double.NaN)
        val p = picture(a)
        val img = decode(a)
        val line = 0x1f77b4
        fun x(i: Int) = p.plotX + Math.round(i * (p.plotWidth - 1) / 49.0).toInt()
        hex(rgb(img, x(17), p.plotY)) shouldBe hex(line)
        hex(rgb(img, x(40), p.plotY + p.plotHeight - 1)) shouldBe hex(line)
        hex(rgb(img, x(30), p.plotY + p.plotHeight / 2)) shouldBe "ffffff" // zero is at 1/6 from the bottom; NaN draws nothing
        p.caption[0] shouldContain "1 NaN (gaps)"
    }

    test("a long 1-D array is downsampled to 640 columns and keeps a one-element spike") {
        val a = NDArrays.zeros(I16.TYPE, 100_000)
        a.setLong(54_321, 9)
        val p = picture(a)
        p.caption shouldContain "downsampled 100000 -> 640 columns (min to max of each)"
        val img = decode(a)
        val col = (54_321L * 640 / 100_000).toInt()
        val x = p.plotX + Math.round(col * (p.plotWidth - 1) / 639.0).toInt()
        hex(rgb(img, x, p.plotY)) shouldBe hex(0x1f77b4)
        hex(rgb(img, x + 3, p.plotY)) shouldBe "ffffff"
    }

    test("axes of length 1 are dropped; three longer axes are a clear error; toPng(path) writes the file") {
        val a = NDArrays.zeros(F64.TYPE, 1, 5, 6)
        picture(a).plotWidth / picture(a).cellWidth shouldBe 6
        val e = shouldThrow<IllegalArgumentException> { NDArrays.zeros(F64.TYPE, 2, 3, 4).toPng() }
        e.message shouldBe "toPng draws 1-D and 2-D arrays, not F64 (2, 3, 4): select a 2-D part first, e.g. a.select(0, 0)"
        val f = Files.createTempFile("render", ".png")
        try {
            a.toPng(f)
            ImageIO.read(f.toFile()).width shouldBe picture(a).image.width
        } finally {
            Files.deleteIfExists(f)
        }
    }
})

/** The picture toPng encodes, before encoding. */
private fun picture(a: SharedNDArray<*>) = Pictures.of(ArrayDrawing(a))
