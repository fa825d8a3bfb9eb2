/** The GetProviderSchema answer with the provider's own protobuf codec. */
import { decodeMessage, encodeMessage } from '../../lib/provider/plugin/protobuf';
import { providerSchemaResponse } from './wire';

export async function answerWithOurCodec(request: Buffer): Promise<Buffer> {
  decodeMessage('tfplugin6.GetProviderSchema.Request', request);
  return encodeMessage('tfplugin6.GetProviderSchema.Response', providerSchemaResponse());
}
