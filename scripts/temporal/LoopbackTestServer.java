// Temporal's time-skipping test server, bound to the loopback interface only.
// io.temporal.testserver.TestServer listens on every interface; tests here must stay on loopback.
import io.grpc.BindableService;
import io.grpc.Server;
import io.grpc.netty.shaded.io.grpc.netty.NettyServerBuilder;
import io.grpc.protobuf.services.HealthStatusManager;
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
    TestServicesStarter services = new TestServicesStarter(false, 0);
    HealthStatusManager health = new HealthStatusManager();
    NettyServerBuilder builder =
        NettyServerBuilder.forAddress(new InetSocketAddress(InetAddress.getLoopbackAddress(), port));
    for (BindableService service : services.getServices()) builder.addService(service);
    builder.addService(health.getHealthService());
    Server server = builder.build().start();
    health.setStatus("", io.grpc.health.v1.HealthCheckResponse.ServingStatus.SERVING);
    health.setStatus("temporal.api.workflowservice.v1.WorkflowService",
        io.grpc.health.v1.HealthCheckResponse.ServingStatus.SERVING);
    Runtime.getRuntime().addShutdownHook(new Thread(() -> {
      server.shutdownNow();
      services.close();
    }));
    server.awaitTermination();
  }
}
