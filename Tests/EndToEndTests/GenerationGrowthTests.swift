import Foundation
import LeakGraphReport
import Testing

// Growth between generations (issue 13): a cache that only grows, measured in-process with
// `LeakChecker.markGeneration()` / `Generation.growth()`, compiled at -Onone and -O.

@Suite("Generations: what grew since a mark", .timeLimit(.minutes(10)))
struct GenerationGrowthTests {
    private func growth(_ mode: String, _ optimization: Optimization) async throws -> (GenerationGrowth, String) {
        let program = try await InProcessBuilds.shared.executable("GenerationGrowth", optimization, harness: false)
        let result = try await runProcess(program, arguments: [mode], environment: cleanEnvironment())
        #expect(!result.signaled && result.status == 0, "\(result.summary)")
        let line = try #require(result.standardOutput.split(separator: "\n").first { $0.hasPrefix("GROWTH-JSON ") })
        let decoder = JSONDecoder()
        return (try decoder.decode(GenerationGrowth.self, from: Data(line.dropFirst("GROWTH-JSON ".count).utf8)), result.standardOutput)
    }

    @Test("the cache's 100 images made after the mark are listed with their creation site; the 10 before and the freed temporaries are not",
          arguments: Optimization.allCases)
    func cacheGrows(_ optimization: Optimization) async throws {
        let (growth, text) = try await growth("grow", optimization)
        let images = try #require(growth.rows.first { $0.type == "Fixture.CachedImage" }, "\(text)")
        #expect(images.count == 100)
        #expect(images.bytes >= 100 * 32)
        #expect(images.site == "main.swift:36", "\(text)")
        #expect(images.function?.contains("ImageCache.insert") == true, "\(text)")
        #expect(!growth.rows.contains { $0.type == "Fixture.Transient" }, "freed temporaries are not growth")
        #expect(growth.objects >= 200, "the images and their pixel arrays")
        #expect(text.contains("CachedImage × 100 ("), "\(text)")
        #expect(text.contains("created at main.swift:36 in "), "\(text)")
    }

    @Test("a cache emptied before measuring shows no image growth", arguments: Optimization.allCases)
    func cacheCleared(_ optimization: Optimization) async throws {
        let (growth, text) = try await growth("clear", optimization)
        #expect(!growth.rows.contains { $0.type == "Fixture.CachedImage" }, "\(text)")
    }
}
