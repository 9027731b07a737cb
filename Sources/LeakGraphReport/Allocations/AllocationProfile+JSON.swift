extension JSONText {
    /// Writes an allocation profile as its `Codable` conformance does (keys in byte order, a site's
    /// absent `function`, `file` and `line` left out), for ``LeakReport/jsonData(prettyPrinted:)``.
    mutating func write(_ profile: AllocationProfile) {
        typealias Key = AllocationProfile.CodingKeys
        typealias SiteKey = AllocationProfile.Site.CodingKeys
        openObject()
        key(Key.aliveBytes)
        integer(profile.aliveBytes)
        key(Key.aliveObjects)
        integer(profile.aliveObjects)
        key(Key.bytes)
        integer(profile.bytes)
        key(Key.excludedBytes)
        integer(profile.excludedBytes)
        key(Key.excludedObjects)
        integer(profile.excludedObjects)
        key(Key.objects)
        integer(profile.objects)
        key(Key.sites)
        openArray()
        for site in profile.sites {
            element()
            openObject()
            key(SiteKey.aliveBytes)
            integer(site.aliveBytes)
            key(SiteKey.aliveObjects)
            integer(site.aliveObjects)
            key(SiteKey.bytes)
            integer(site.bytes)
            if let file = site.file {
                key(SiteKey.file)
                string(file)
            }
            if let function = site.function {
                key(SiteKey.function)
                string(function)
            }
            if let line = site.line {
                key(SiteKey.line)
                integer(line)
            }
            key(SiteKey.objects)
            integer(site.objects)
            key(SiteKey.type)
            string(site.type)
            closeObject()
        }
        closeArray()
        closeObject()
    }

    /// Writes one test's allocations (keys in byte order, an absent `run` left out).
    mutating func write(_ row: TestAllocations) {
        typealias Key = TestAllocations.CodingKeys
        openObject()
        key(Key.allocations)
        write(row.allocations)
        if let run = row.run {
            key(Key.run)
            string(run)
        }
        key(Key.test)
        string(row.test)
        closeObject()
    }
}
