extension JSONText {
    /// Writes an allocation profile as its `Codable` conformance does (keys in byte order, a site's
    /// absent `function`, `file` and `line` left out), for ``LeakReport/jsonData(prettyPrinted:)``.
    mutating func write(_ profile: AllocationProfile) {
        openObject()
        key("aliveBytes")
        integer(profile.aliveBytes)
        key("aliveObjects")
        integer(profile.aliveObjects)
        key("bytes")
        integer(profile.bytes)
        key("excludedBytes")
        integer(profile.excludedBytes)
        key("excludedObjects")
        integer(profile.excludedObjects)
        key("objects")
        integer(profile.objects)
        key("sites")
        openArray()
        for site in profile.sites {
            element()
            openObject()
            key("aliveBytes")
            integer(site.aliveBytes)
            key("aliveObjects")
            integer(site.aliveObjects)
            key("bytes")
            integer(site.bytes)
            if let file = site.file {
                key("file")
                string(file)
            }
            if let function = site.function {
                key("function")
                string(function)
            }
            if let line = site.line {
                key("line")
                integer(line)
            }
            key("objects")
            integer(site.objects)
            key("type")
            string(site.type)
            closeObject()
        }
        closeArray()
        closeObject()
    }

    /// Writes one test's allocations (keys in byte order, an absent `run` left out).
    mutating func write(_ row: TestAllocations) {
        openObject()
        key("allocations")
        write(row.allocations)
        if let run = row.run {
            key("run")
            string(run)
        }
        key("test")
        string(row.test)
        closeObject()
    }
}
