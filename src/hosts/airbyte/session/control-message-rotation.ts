import type { RotationKeeper } from '../../../connector/index.js';
import type { Logger } from '../../../log/index.js';
import type { MessageOutput } from '../messages/index.js';
import type { AirbyteConfiguration } from './airbyte-configuration.js';

/**
 * The Airbyte host's way to keep a rotated secret: the whole configuration with the new value goes
 * to Airbyte as a CONTROL message (CONNECTOR_CONFIG), on its way before `keep` resolves — that is,
 * before the new value is used. Airbyte stores it for the next command.
 */
export class ControlMessageRotation implements RotationKeeper {
  readonly #configuration: AirbyteConfiguration;
  readonly #output: MessageOutput;
  readonly #log: Logger;

  constructor(configuration: AirbyteConfiguration, output: MessageOutput, log: Logger) {
    this.#configuration = configuration;
    this.#output = output;
    this.#log = log;
  }

  async keep(key: string, value: string): Promise<void> {
    await this.#output.control(this.#configuration.withValue(key, value));
    this.#log.info(`sent Airbyte the configuration with the new value of '${key}' (CONTROL message, CONNECTOR_CONFIG)`);
  }
}
