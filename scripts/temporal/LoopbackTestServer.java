// Temporal's time-skipping test server, bound to the loopback interface only.
// io.temporal.testserver.TestServer listens on every interface; tests here must stay on loopback.
import io.grpc.Server;
import io.grpc.netty.shaded.io.grpc.netty.NettyServerBuilder;
import io.temporal.internal.testservice.GRPCServerHelper;
import io.temporal.internal.testservice.TestServicesStarter;
import java.net.InetAddress;
import java.net.InetSocketAddress;

public final class LoopbackTestServer {
  public static void main(String[] args) throws Exception {
    if (args.length < 1) {
      System.err.println("usage: LoopbackTestServer <port>");
      System.exit(2);
    }
    int port = Integer.parseInt(args[0]);
    // Same as TestServer.createPortBoundServer(port): time skipping starts locked, and the SDK's
    // time-skipping client unlocks it while it waits for a result.
    TestServicesStarter services = new TestServicesStarter(true, 0);
    NettyServerBuilder builder =
        NettyServerBuilder.forAddress(new InetSocketAddress(InetAddress.getLoopbackAddress(), port));
    GRPCServerHelper.registerServicesAndHealthChecks(services.getServices(), builder);
    Server server = builder.build().start();
    Runtime.getRuntime().addShutdownHook(new Thread(() -> {
      server.shutdownNow();
      services.close();
    }));
    server.awaitTermination();
  }
}
