import CLeakGraphHook
import LeakGraphModel

/// The Swift face of the history recorder (CLeakGraphHook's `history.c`): every strong retain and
/// release of the objects of chosen types, with a stack (`leakgraph run --history TYPE`).
public enum RetainHistoryLog {
    /// Starts recording the histories of objects whose type matches one of `patterns` (baseline
    /// `type:` patterns: `Member`, `App.Room*`). The allocation hook must be installed; objects
    /// allocated before this call have no history.
    ///
    /// - Throws: ``RecorderError`` when histories cannot be recorded on this runtime, or a pattern is
    ///   refused.
    public static func start(patterns: [String]) throws(RecorderError) {
        let text = patterns.joined(separator: ",")
        let capacity = 512
        var message = [CChar](repeating: 0, count: capacity)
        let status = message.withUnsafeMutableBufferPointer { buffer in
            lg_history_start(text, buffer.baseAddress, capacity)
        }
        guard status != 0 else { return }
        let error = message.withUnsafeBufferPointer { String(cString: $0.baseAddress!) }
        throw RecorderError(code: RecorderError.Code(status: status), message: error)
    }

    /// Whether histories are being recorded.
    public static var isActive: Bool { lg_history_is_active() != 0 }

    /// The type patterns in force (empty when not recording).
    public static var patterns: [String] {
        String(cString: lg_history_patterns()).split(whereSeparator: { $0 == "," || $0 == "\n" })
            .map { String($0.drop(while: { $0 == " " }).reversed().drop(while: { $0 == " " }).reversed()) }.filter {
                !$0.isEmpty
            }
    }

    /// The recorder's counters: events recorded and lost, types seen and matched.
    public static var statistics: lg_history_stats_t {
        var stats = lg_history_stats_t()
        lg_history_stats(&stats)
        return stats
    }

    /// The history of each object at `addresses` that has one: its events since its (latest)
    /// allocation, oldest first. Events of an earlier object at the same address are left out.
    ///
    /// - Parameter creationStacks: each object's creation stack, given to its allocation event.
    /// - Complexity: O(*e*) for *e* events recorded in the process.
    public static func histories(of addresses: [UInt], creationStacks: [UInt: UInt32?] = [:]) -> [UInt: RetainHistory] {
        guard isActive, !addresses.isEmpty else { return [:] }
        let wanted = Set(addresses)
        var events: [UInt: [RetainEvent]] = [:]
        let total = lg_history_event_count()
        let batch = 65_536
        var buffer = [lg_history_event](repeating: lg_history_event(), count: batch)
        var start = 0
        while start < total {
            let copied = buffer.withUnsafeMutableBufferPointer { lg_history_copy_events(start, $0.baseAddress, batch) }
            if copied == 0 { break }
            for offset in 0..<copied {
                let raw = buffer[offset]
                let address = UInt(raw.object)
                guard wanted.contains(address), let kind = Self.kind(raw.kind) else { continue }
                let event = RetainEvent(
                    kind: kind, count: Int(raw.count),
                    stackID: raw.stack_id != LG_NO_STACK
                        ? raw.stack_id : kind == .allocation ? (creationStacks[address] ?? nil) : nil,
                    thread: Int(raw.thread), frame: kind == .write ? 0 : UInt64(raw.frame), sequence: start + offset,
                    address: kind == .write ? UInt64(raw.frame) : 0)
                if kind == .allocation {
                    events[address] = [event]
                } else {
                    events[address, default: []].append(event)
                }
            }
            start += copied
        }
        let lost = statistics.dropped > 0
        return events.mapValues { RetainHistory(events: $0, complete: !lost && $0.first?.kind == .allocation) }
    }

    private static func kind(_ raw: UInt8) -> RetainEvent.Kind? {
        switch UInt32(raw) {
        case LG_HISTORY_ALLOC.rawValue: .allocation
        case LG_HISTORY_RETAIN.rawValue: .retain
        case LG_HISTORY_RELEASE.rawValue: .release
        case LG_HISTORY_WRITE.rawValue: .write
        default: nil
        }
    }
}
