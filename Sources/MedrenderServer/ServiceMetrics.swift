import Foundation
import Synchronization

/// What `GET /metrics` reports, in Prometheus' text format: requests by route and status,
/// renders running and queued, the render cache's hits, misses and size, render seconds and bytes
/// sent. Counters only grow; safe to share between tasks.
final class ServiceMetrics: Sendable {
    private struct Counters {
        var requests: [String: [Int: Int]] = [:]
        var cacheHits = 0
        var cacheMisses = 0
        var renderSeconds = 0.0
        var rendersDone = 0
        var bytesSent: Int64 = 0
        var connectionsRefused = 0
        var stoppedByPass: [Int: Int] = [:]
        var renderThreads: [Int: Int] = [:]
        var joinedRenders = 0
    }

    private let counters = Mutex(Counters())

    func request(route: String, status: Int) { counters.withLock { c in c.requests[route, default: [:]][status, default: 0] += 1 } }
    func hit() { counters.withLock { c in c.cacheHits += 1 } }
    func miss() { counters.withLock { c in c.cacheMisses += 1 } }
    func rendered(seconds: Double) { counters.withLock { c in c.renderSeconds += seconds; c.rendersDone += 1 } }
    func sent(_ bytes: Int) { counters.withLock { c in c.bytesSent += Int64(bytes) } }
    func refusedConnection() { counters.withLock { c in c.connectionsRefused += 1 } }
    /// A render stopped because every reader left, in `pass` (0 before pass 1 began).
    func stopped(pass: Int) { counters.withLock { c in c.stoppedByPass[pass, default: 0] += 1 } }
    /// A render's thread started (from nil), went on to another pass, or ended (to nil).
    func renderThread(from: Int?, to: Int?) {
        counters.withLock { c in
            if let from { c.renderThreads[from, default: 0] -= 1 }
            if let to { c.renderThreads[to, default: 0] += 1 }
        }
    }
    /// A request read a render another request had started.
    func joined() { counters.withLock { c in c.joinedRenders += 1 } }

    /// The exposition text, with the gauges given by the caller.
    func text(running: Int, queued: Int, cacheEntries: Int, cacheBytes: Int64, soundBytes: Int, connections: Int) -> String {
        counters.withLock { c in
            var out = ""
            func metric(_ name: String, _ type: String, _ help: String, _ lines: [String]) {
                out += "# HELP \(name) \(help)\n# TYPE \(name) \(type)\n"
                for line in lines { out += line + "\n" }
            }
            var lines: [String] = []
            for route in c.requests.keys.sorted() {
                for status in c.requests[route]!.keys.sorted() {
                    lines.append("medrender_requests_total{route=\"\(route)\",status=\"\(status)\"} \(c.requests[route]![status]!)")
                }
            }
            metric("medrender_requests_total", "counter", "Requests answered, by route and status.", lines)
            metric("medrender_renders_running", "gauge", "Renders running now.", ["medrender_renders_running \(running)"])
            metric("medrender_renders_queued", "gauge", "Renders waiting for a place.", ["medrender_renders_queued \(queued)"])
            metric("medrender_renders_total", "counter", "Renders finished.", ["medrender_renders_total \(c.rendersDone)"])
            metric("medrender_render_threads", "gauge",
                   "Render threads working now, by the pass they are in (0: preparing); a stopped render's thread ends at its next block.",
                   (0...3).map { "medrender_render_threads{pass=\"\($0)\"} \(c.renderThreads[$0] ?? 0)" })
            metric("medrender_renders_stopped_total", "counter", "Renders stopped because every client left, by the pass they were in.",
                   (c.stoppedByPass.isEmpty ? [1] : c.stoppedByPass.keys.sorted()).map {
                       "medrender_renders_stopped_total{pass=\"\($0)\"} \(c.stoppedByPass[$0] ?? 0)"
                   })
            metric("medrender_renders_joined_total", "counter", "Requests that read a render another request had started.",
                   ["medrender_renders_joined_total \(c.joinedRenders)"])
            metric("medrender_render_seconds_total", "counter", "Wall-clock seconds spent rendering.",
                   ["medrender_render_seconds_total \(String(format: "%.3f", c.renderSeconds))"])
            metric("medrender_cache_hits_total", "counter", "Renders served from the render cache.", ["medrender_cache_hits_total \(c.cacheHits)"])
            metric("medrender_cache_misses_total", "counter", "Renders not in the render cache.", ["medrender_cache_misses_total \(c.cacheMisses)"])
            metric("medrender_cache_entries", "gauge", "Entries in the render cache.", ["medrender_cache_entries \(cacheEntries)"])
            metric("medrender_cache_bytes", "gauge", "Bytes in the render cache.", ["medrender_cache_bytes \(cacheBytes)"])
            metric("medrender_sound_cache_bytes", "gauge", "Bytes of decoded sounds held in memory.", ["medrender_sound_cache_bytes \(soundBytes)"])
            metric("medrender_bytes_sent_total", "counter", "Response body bytes sent.", ["medrender_bytes_sent_total \(c.bytesSent)"])
            metric("medrender_connections", "gauge", "Open connections.", ["medrender_connections \(connections)"])
            metric("medrender_connections_refused_total", "counter", "Connections answered 503 past the connection limit.",
                   ["medrender_connections_refused_total \(c.connectionsRefused)"])
            return out
        }
    }
}
