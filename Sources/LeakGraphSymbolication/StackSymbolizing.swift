/// Something that turns a backtrace's return addresses into the frames a report shows, inlined calls
/// expanded: a ``Symbolizer`` in this process, or a ``RemoteSymbolizer`` that asks `leakgraph run` to
/// do it in its own process (so the checked program never reads debug information).
///
/// Both give the same frames for the same process: the remote one runs a ``Symbolizer`` over the
/// asking process's memory map.
public protocol StackSymbolizing: AnyObject {
    /// The frames of `addresses` (return addresses, innermost first), each address expanded into the
    /// functions inlined there and the one that holds the code: ``Symbolizer/symbolizeExpandingInlines(_:as:)``.
    func symbolizeExpandingInlines(returnAddresses addresses: [UInt]) -> [SymbolizedFrame]
}

extension Symbolizer: StackSymbolizing {
    /// ``symbolizeExpandingInlines(_:as:)`` of return addresses.
    public func symbolizeExpandingInlines(returnAddresses addresses: [UInt]) -> [SymbolizedFrame] {
        symbolizeExpandingInlines(addresses, as: .returnAddress)
    }
}
