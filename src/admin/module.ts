import type { RelayModule } from "../modules.js";
import { adminRouter } from "./board.js";

/** The admin page: present only when ADMIN_PASSWORD is set. */
export const adminModule: RelayModule = {
  name: "admin",
  routes(services) {
    const password = services.config.adminPassword;
    return password ? [adminRouter(services, password)] : [];
  },
};
