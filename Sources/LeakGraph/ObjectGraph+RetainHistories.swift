import LeakGraphModel
import LeakGraphRecording

extension ObjectGraph {
    /// Gives every node whose type the history recorder follows its retain history
    /// (``ObjectGraph/retainHistories``), when histories are recorded (`leakgraph run --history`).
    /// Called while the heap is frozen, after the nodes are built: no node can have died since.
    mutating func attachRetainHistories() {
        guard RetainHistoryLog.isActive, !nodes.isEmpty else { return }
        let addresses = nodes.map { UInt($0.address) }
        var creation: [UInt: UInt32?] = [:]
        for node in nodes {
            creation[UInt(node.address)] = node.stackID.map(UInt32.init)
        }
        let byAddress = RetainHistoryLog.histories(of: addresses, creationStacks: creation)
        for (index, address) in addresses.enumerated() {
            if let history = byAddress[address] {
                retainHistories[index] = history
            }
        }
    }
}
