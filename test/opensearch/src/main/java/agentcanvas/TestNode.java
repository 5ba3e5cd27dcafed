package agentcanvas;

import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;

import org.codelibs.opensearch.runner.OpenSearchRunner;

/**
 * Starts a one-node OpenSearch cluster for tests on free ports, prints
 * {@code READY http://127.0.0.1:<port>} once the cluster is usable, and stops when its standard
 * input closes: the test process that spawned it holds that pipe, so the node never outlives it.
 *
 * <p>Arguments: {@code <basePath> [knn|plain]}. {@code knn} (the default) loads the k-NN plugin
 * from the classpath; {@code plain} runs core OpenSearch only (exact script scoring).
 */
public final class TestNode {
    private TestNode() {
    }

    private static int freePort() throws IOException {
        try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            return socket.getLocalPort();
        }
    }

    public static void main(final String[] args) throws Exception {
        final String basePath = args[0];
        final boolean knn = args.length < 2 || "knn".equals(args[1]);
        final int httpPort = freePort();
        final int transportPort = freePort();
        final OpenSearchRunner runner = new OpenSearchRunner();
        runner.onBuild((number, settings) -> {
            settings.put("http.port", httpPort);
            settings.put("transport.port", transportPort);
            settings.put("network.host", "127.0.0.1");
            settings.put("discovery.type", "single-node");
            // A nearly full disk must not turn test indices read-only.
            settings.put("cluster.routing.allocation.disk.threshold_enabled", false);
            settings.put("action.auto_create_index", false);
        });
        final OpenSearchRunner.Configs configs = OpenSearchRunner.newConfigs().basePath(basePath).numOfNode(1).disableESLogger();
        if (knn) {
            configs.pluginTypes("org.opensearch.knn.plugin.KNNPlugin");
        }
        runner.build(configs);
        runner.ensureYellow();
        System.out.println("READY http://127.0.0.1:" + httpPort);
        System.out.flush();
        while (System.in.read() != -1) {
            // Wait for the parent to go away.
        }
        runner.close();
        runner.clean();
        System.exit(0);
    }
}
