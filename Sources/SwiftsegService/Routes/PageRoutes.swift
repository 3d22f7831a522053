/// `GET /`: a page built into the binary (no scripts or styles from elsewhere) to try the service in a
/// browser: pick or drop a photo; see the cutout on a checkerboard, the mask or an effect, the instances,
/// the labels and the rectangles; download the picture. It calls the same endpoints a client would.
enum PageRoutes {
    static let routes = [
        Route(method: "GET", path: "/", usesLane: false) { _, _ in
            .text(WebPage.html, contentType: "text/html; charset=utf-8")
        },
    ]
}
