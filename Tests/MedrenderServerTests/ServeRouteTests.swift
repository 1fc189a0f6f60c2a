import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Logging
@testable import MedrenderServer
import MedrenderPresets
import MedrenderTestSupport
import Testing

/// The route table, in process (Hummingbird's router test framework, no socket): every route is
/// reachable, each one the table declares keyed refuses a request without a key, a method it does
/// not answer is a 405 naming the ones it does, and an error is answered as the one mapping says.
@Suite struct ServeRouteTests {
    static let key = "route-test-key-0123456789"

    /// A service over the stock library, with one key, its cache in `dir`.
    static func service(_ dir: TemporaryDirectory) throws -> MedrenderService {
        var settings = MedrenderService.Settings(library: PresetLibrary(root: PackagePaths.root))
        settings.cacheFolder = dir.file("cache")
        settings.apiKeysFile = dir.write("keys", key + "\n")
        var logger = Logger(label: "medrender-route-test")
        logger.logLevel = .critical
        return try MedrenderService(settings: settings, logger: logger)
    }

    /// The table's path with its parameters filled in.
    static func uri(_ route: ServedRoute) -> String {
        route.path.replacingOccurrences(of: "NAME", with: "box-breath").replacingOccurrences(of: "ID", with: "no-such-take")
    }

    @Test func everyRouteIsReachableAndEachKeyedOneAsksForAKey() async throws {
        let dir = TemporaryDirectory("serve-routes")
        let app = Application(router: try Self.service(dir).router())
        try await app.test(.router) { client in
            for route in ServedRoute.all {
                let method: HTTPRequest.Method = route.takesPost ? .post : .get
                let without = try await client.execute(uri: Self.uri(route), method: method)
                if route.keyed {
                    #expect(without.status == .unauthorized, "\(route.path) without a key: \(without.status)")
                    #expect(without.headers[.wwwAuthenticate] == "Bearer")
                } else {
                    #expect(without.status == .ok, "\(route.path) without a key: \(without.status)")
                }
                // With the key, the route itself answers: not the key's refusal, not the 404 of a
                // path the table does not know (a route may still refuse what this request lacks).
                let with = try await client.execute(uri: Self.uri(route), method: method, headers: [.authorization: "Bearer \(Self.key)"])
                let text = String(buffer: with.body)
                #expect(with.status != .unauthorized && !text.hasPrefix("no such path"), "\(route.path) with the key: \(with.status) \(text)")
                #expect(with.status.code < 500, "\(route.path) with the key: \(with.status) \(text)")
            }
        }
    }

    @Test func aMethodARouteDoesNotAnswerIsA405NamingTheOnesItDoes() async throws {
        let dir = TemporaryDirectory("serve-routes-405")
        let app = Application(router: try Self.service(dir).router())
        try await app.test(.router) { client in
            for route in ServedRoute.all {
                let wrong: HTTPRequest.Method = route.takesPost ? .get : .post
                let answer = try await client.execute(uri: Self.uri(route), method: wrong, headers: [.authorization: "Bearer \(Self.key)"])
                #expect(answer.status == .methodNotAllowed, "\(wrong) \(route.path): \(answer.status)")
                #expect(answer.headers[.allow] == route.allowed)
            }
            let unknown = try await client.execute(uri: "/no/such/route", method: .get)
            #expect(unknown.status == .notFound)
            #expect(ServedRoute.all.allSatisfy { String(buffer: unknown.body).contains($0.path) })
        }
    }

    @Test func errorsAreAnsweredByTheOneMapping() async throws {
        let dir = TemporaryDirectory("serve-routes-errors")
        let app = Application(router: try Self.service(dir).router())
        let key: HTTPFields = [.authorization: "Bearer \(Self.key)"]
        try await app.test(.router) { client in
            // The request's fault (usage) is a 400, a preset the library lacks a 404, a range past
            // the end a 416 with the length: each a one-line text naming what is wrong.
            let usage = try await client.execute(uri: "/cues?preset=box-breath&minutes=0", method: .get, headers: key)
            #expect(usage.status == .badRequest && String(buffer: usage.body) .hasPrefix("minutes=0"), "\(String(buffer: usage.body))")
            let missing = try await client.execute(uri: "/cues?preset=no-such-preset", method: .get, headers: key)
            #expect(missing.status == .notFound && String(buffer: missing.body).contains("no preset named 'no-such-preset'"))
            #expect(!String(buffer: missing.body).contains(PackagePaths.root), "the library's folder is left out")
            #expect(ServeError.status(for: .usage) == .badRequest && ServeError.status(for: .badData) == .badRequest)
            #expect(ServeError.status(for: .missingInput) == .notFound && ServeError.status(for: .io) == .internalServerError)
        }
    }
}
