/// Finds the instructions that store a 64-bit register into memory at a given displacement from a base
/// register — how optimized Swift code writes a class reference into a stored property
/// (`mov %rbx, 0x10(%r14)` for the first property of a class) — in a function of this process.
///
/// Used where the compiler gave a retain's call no source line (optimized code): the store of the
/// reference into its field usually has one, and it is the store site itself. x86-64 only (elsewhere
/// nothing is found). The scan reads the function's code bytes and matches `REX.W 89 /r` with a memory
/// operand `[base + disp8]` or `[base + disp32]` (with or without an index byte); it does not decode
/// other instructions, so a match could in principle start inside another instruction's bytes — the
/// caller keeps an answer only when the matches agree.
public enum StoreInstructions {
    /// The addresses of the stores into `[register + displacement]` in `range` (a function's code in this
    /// process), ascending.
    public static func stores(in range: Range<UInt>, displacement: Int) -> [UInt] {
        #if arch(x86_64)
            guard range.count >= 4, range.count < 1 << 20, let base = UnsafeRawPointer(bitPattern: range.lowerBound)
            else {
                return []
            }
            let bytes = UnsafeRawBufferPointer(start: base, count: range.count)
            var found: [UInt] = []
            var index = 0
            while index + 3 < bytes.count {
                defer { index += 1 }
                let rex = bytes[index]
                guard rex & 0xF8 == 0x48, bytes[index + 1] == 0x89 else { continue }
                let modrm = bytes[index + 2]
                let mode = modrm >> 6
                let rm = modrm & 7
                guard mode == 1 || mode == 2 else { continue }
                var cursor = index + 3
                if rm == 4 { cursor += 1 }  // an index (SIB) byte
                let size = mode == 1 ? 1 : 4
                guard cursor + size <= bytes.count else { continue }
                let value: Int
                if mode == 1 {
                    value = Int(Int8(bitPattern: bytes[cursor]))
                } else {
                    var raw: UInt32 = 0
                    for offset in 0..<4 { raw |= UInt32(bytes[cursor + offset]) << (8 * offset) }
                    value = Int(Int32(bitPattern: raw))
                }
                if value == displacement {
                    found.append(range.lowerBound + UInt(index))
                }
            }
            return found
        #else
            return []
        #endif
    }
}
