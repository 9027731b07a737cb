import Testing

@testable import LeakGraphHeap

@Suite("Plan ids in 8, 16 or 32 bits")
struct PlanIDsTests {
    /// Ids appended across each width's limit read back exactly, the ones stored before a widening too.
    @Test("ids read back exactly across the 8-bit and 16-bit limits", arguments: [false, true])
    func widening(reserved: Bool) {
        let ids: [UInt32] = [0, 3, 254] + (0..<300).map { UInt32($0) } + [65_534, 7, 65_535, 1 << 20, 254, 255]
        var planIDs = PlanIDs()
        if reserved { planIDs.reserveCapacity(ids.count) }
        var stored: [UInt32] = []
        for id in ids {
            planIDs.append(id)
            stored.append(id)
            #expect(planIDs.count == stored.count)
            #expect((0..<stored.count).map { planIDs[$0] } == stored)
        }
    }
}
