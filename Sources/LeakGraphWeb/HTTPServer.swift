import NIOCore
import NIOHTTP1
import NIOPosix

/// Serves a ``SnapshotSite`` over HTTP/1.1 with SwiftNIO: one event loop, each request answered on it.
public final class SnapshotServer: Sendable {
    private let group: MultiThreadedEventLoopGroup
    private let channel: any Channel
    /// The address the server listens on, as a URL (`http://127.0.0.1:8080/`).
    public let url: String

    /// Why the server could not start.
    public struct StartError: Error, CustomStringConvertible, Sendable {
        /// One sentence: the address and the reason.
        public var description: String
    }

    /// Listens on `host`:`port` (0 picks a free port) and serves `site`.
    /// - Throws: ``StartError`` when the address cannot be bound (in use, not local, …).
    public init(site: SnapshotSite, host: String, port: Int) throws(StartError) {
        let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
        let bootstrap = ServerBootstrap(group: group)
            .serverChannelOption(ChannelOptions.backlog, value: 64)
            .serverChannelOption(ChannelOptions.socketOption(.so_reuseaddr), value: 1)
            .childChannelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.configureHTTPServerPipeline(withErrorHandling: true)
                    try channel.pipeline.syncOperations.addHandler(SiteHandler(site: site))
                }
            }
        do {
            channel = try bootstrap.bind(host: host, port: port).wait()
        } catch {
            try? group.syncShutdownGracefully()
            let reason = "\(error)".contains("Address already in use") ? "the port is in use" : "\(error)"
            throw StartError(description: "cannot listen on \(host):\(port): \(reason)")
        }
        self.group = group
        let bound = channel.localAddress?.port ?? port
        let shownHost = host.contains(":") ? "[\(host)]" : host
        url = "http://\(shownHost):\(bound)/"
    }

    /// Blocks until the server is closed.
    public func wait() throws {
        try channel.closeFuture.wait()
    }

    /// Closes the server.
    public func close() {
        try? channel.close().wait()
        try? group.syncShutdownGracefully()
    }
}

/// Answers each request of one connection from the site.
private final class SiteHandler: ChannelInboundHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias OutboundOut = HTTPServerResponsePart

    private let site: SnapshotSite
    private var head: HTTPRequestHead?

    init(site: SnapshotSite) {
        self.site = site
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head(let head):
            self.head = head
        case .body:
            break
        case .end:
            guard let head else { return }
            self.head = nil
            let response: WebResponse =
                head.method == .GET || head.method == .HEAD
                ? site.respond(to: WebRequest(target: head.uri))
                : WebResponse(status: 405, contentType: "text/plain; charset=utf-8", body: "Only GET is served.\n")
            var headers = HTTPHeaders()
            headers.add(name: "Content-Type", value: response.contentType)
            headers.add(name: "Cache-Control", value: "no-store")
            if let location = response.location { headers.add(name: "Location", value: location) }
            var body = context.channel.allocator.buffer(capacity: response.body.utf8.count)
            body.writeString(response.body)
            headers.add(name: "Content-Length", value: String(body.readableBytes))
            let keepAlive = head.isKeepAlive
            if !keepAlive { headers.add(name: "Connection", value: "close") }
            context.write(
                wrapOutboundOut(
                    .head(
                        HTTPResponseHead(
                            version: head.version, status: HTTPResponseStatus(statusCode: response.status),
                            headers: headers))),
                promise: nil)
            if head.method != .HEAD {
                context.write(wrapOutboundOut(.body(.byteBuffer(body))), promise: nil)
            }
            let done = context.writeAndFlush(wrapOutboundOut(.end(nil)))
            if !keepAlive {
                let channel = context.channel
                done.whenComplete { _ in channel.close(promise: nil) }
            }
        }
    }
}
