import Foundation
import HTTPTypes
import Hummingbird
import MedrenderCore
import NIOCore

/// The server's one error: a status, its one-line message and the headers that go with it, or, for
/// a studio preset that does not plan, the plan's JSON with its issues. Routes throw it, or any
/// error of the library's; `init(_:library:)` is the one mapping from the library's categories to
/// statuses. Hummingbird answers it (`HTTPResponseError`); the front door turns whatever a route
/// throws into it, so that its answer is counted and logged like any other.
struct ServeError: HTTPResponseError {
    var status: HTTPResponse.Status
    /// The one line a client reads (the body, when there are no issues).
    var message: String
    var headers: HTTPFields = [:]
    /// A studio preset's issues: the answer is `POST /studio/plan`'s JSON, with `ok: false`.
    var invalid: StudioInvalid?

    init(_ status: HTTPResponse.Status, _ message: String, headers: HTTPFields = [:]) {
        self.status = status
        self.message = message
        self.headers = headers
    }

    /// A studio preset that does not plan: 422, its issues at their lines, beside their fields.
    static func invalid(_ failure: StudioInvalid) -> ServeError {
        var error = ServeError(.unprocessableContent, failure.issues.first?.message ?? "the preset is not valid")
        error.invalid = failure
        return error
    }

    /// Every render place is taken and the queue is full.
    static let full = ServeError(.serviceUnavailable, "every render place is taken and the queue is full; try again in a few seconds",
                                 headers: [.retryAfter: "5"])

    /// The client left before its request had a render place.
    static let clientGone = ServeError(.serviceUnavailable, "the client went away")

    /// No render place: `clientGone` when its client left, else `full`.
    static func noPlace(clientLeft: Bool) -> ServeError { clientLeft ? clientGone : full }

    /// A client over one of its limits.
    static func limited(_ message: String, retryAfter: Int) -> ServeError {
        ServeError(.tooManyRequests, message, headers: [.retryAfter: "\(retryAfter)"])
    }

    /// The HTTP status for an error's category: the request's fault is 4xx, ours 5xx.
    static func status(for category: ErrorCategory) -> HTTPResponse.Status {
        switch category {
        case .usage, .badData: .badRequest
        case .missingInput: .notFound
        case .cannotCreate, .io, .internal: .internalServerError
        }
    }

    /// Any error as the server answers it: a `ServeError` as it is; Hummingbird's own with its
    /// status; the library's by its category, worded as the query names fields (`minutes=0`), with
    /// the library's folders left out (a client knows presets by name); anything else a 500.
    init(_ error: any Error, libraryRoots: [String]) {
        switch error {
        case let error as ServeError:
            self = error
        case let error as HTTPError:
            self.init(error.status, error.body ?? "\(error.status)", headers: error.headers)
        case let error as any DiagnosedError:
            var text = error.worded(for: .query)
            for root in libraryRoots {
                let real = URL(fileURLWithPath: root).standardizedFileURL.path
                for prefix in [real + "/", root + "/"] { text = text.replacingOccurrences(of: prefix, with: "") }
                text = text.replacingOccurrences(of: real, with: "the library").replacingOccurrences(of: root, with: "the library")
            }
            self.init(Self.status(for: error.category), text.split(separator: "\n").first.map(String.init) ?? text)
        default:
            self.init(.internalServerError, "\(error)")
        }
    }

    /// The answer: its message as one line of plain text, or the plan's JSON for a preset's issues.
    var response: Response {
        var fields = headers
        if let invalid {
            var answer = StudioPlanAnswer(ok: false, errors: invalid.issues)
            answer.form = invalid.outline
            if let data = try? MedrenderService.jsonData(answer) {
                fields[.contentType] = "application/json"
                return Response(status: status, headers: fields, body: ResponseBody(byteBuffer: ByteBuffer(bytes: data)))
            }
        }
        fields[.contentType] = "text/plain; charset=utf-8"
        return Response(status: status, headers: fields, body: ResponseBody(byteBuffer: ByteBuffer(string: message + "\n")))
    }

    func response(from request: Request, context: some RequestContext) throws -> Response { response }
}
