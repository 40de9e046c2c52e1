package dev.sharedarrays.notebook

import dev.sharedarrays.notebook.internal.KotlinKernel

/**
 * The Kotlin kernel's process: `java ... dev.sharedarrays.notebook.KotlinKernelMain CONNECTION_FILE`, as the
 * kernel spec "sharedarrays-kotlin" that `bin/notebook` writes starts it.
 */
public object KotlinKernelMain {
    @JvmStatic
    public fun main(args: Array<String>) {
        KernelMain.serve(args) { version -> KotlinKernel(version) }
    }
}
