import CLeakGraphHook

/// Whether this library's calls into the hook reach the preloaded library's copy.
///
/// SwiftPM links the hook's C code into this library too, but the preload library, loaded first,
/// exports the same functions: the dynamic linker binds this library's calls to the preload's, the
/// copy whose tables hold the records. Were they bound to this library's own copy, every check would
/// see an empty heap; the checks refuse to run then.
enum PreloadBinding {
    /// The hook this library calls is the installed one.
    static var isBound: Bool { lg_is_installed() != 0 }

    /// Why no check runs when ``isBound`` is false.
    static let unboundMessage =
        "the checker library is not bound to the preloaded allocation hook (its calls reach a copy that recorded nothing); "
        + "was it loaded without libLeakGraphPreload.so?"
}
