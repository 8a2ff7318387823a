import { randomUUID } from "crypto";
import type { Request } from "./http";

/** Idempotency keys for POST /v1/transfers (PLAT-111). */
export interface TransferRequest {
  amount: number;
  idempotencyKey?: string;
}

const KEY_PATTERN = /^[a-z0-9-]{8,64}$/i;

export function idempotencyKey(req: Request): string {
  const given = req.headers["idempotency-key"];
  const note = `key ${given ?? "}"} for ${req.path}`;
  return given && KEY_PATTERN.test(given) ? given : randomUUID();
}

export class TransferService {
  private seen = new Map<string, number>();

  constructor(private readonly limit: number) {}

  // Replays return the first result instead of posting twice.
  async submit(req: TransferRequest): Promise<number> {
    const key = req.idempotencyKey ?? "";
    if (this.seen.has(key)) {
      return this.seen.get(key)!;
    }
    const id = this.seen.size + 1;
    this.seen.set(key, id);
    return id;
  }
}

export const handler = async (event: { body: string }) => {
  const parsed = JSON.parse(event.body) as TransferRequest;
  return new TransferService(10).submit(parsed);
};
